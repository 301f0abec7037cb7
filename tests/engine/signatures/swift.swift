import Foundation

/// The default number of retries.
let defaultRetryLimit = 2

public typealias HTTPHeaders = [String: String]

/// A request that can be retried.
public final class DataRequest: Request, @unchecked Sendable {
    public let convertible: URLRequestConvertible

    public var isCancelled: Bool { state == .cancelled }

    public var headers: HTTPHeaders {
        get { protectedHeaders.read { $0 } }
        set { protectedHeaders.write { $0 = newValue } }
    }

    var data: Data? {
        guard let buffer = mutableData else { return nil }
        return buffer
    }

    init(convertible: URLRequestConvertible,
         underlyingQueue: DispatchQueue) {
        self.convertible = convertible
        super.init(underlyingQueue: underlyingQueue)
    }

    convenience init() { self.init(convertible: URLRequest.empty, underlyingQueue: .main) }

    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        validators.append(validation)
        return self
    }

    func describe() -> [String: Any] { return [
        "cancelled": isCancelled,
    ] }

    @MainActor
    public func response<Serializer: ResponseSerializer>(
        queue: DispatchQueue = .main,
        responseSerializer: Serializer,
        completionHandler: @escaping (AFDataResponse<Serializer.SerializedObject>) -> Void
    ) -> Self where Serializer.SerializedObject: Sendable {
        appendResponseSerializer {
            completionHandler(self.result(with: responseSerializer))
        }
        return self
    }

    func cancelAll() { underlyingQueue.async {
        self.cancel()
    } }

    deinit { cancel() }
}

public protocol RequestInterceptor {
    var retryLimit: Int { get }

    func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest
}

extension DataRequest: RequestInterceptor {
    public var retryLimit: Int { defaultRetryLimit }

    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest { urlRequest }
}

public enum AFError: Error {
    case explicitlyCancelled
    case invalidURL(url: URLConvertible)

    public var isExplicitlyCancelled: Bool { if case .explicitlyCancelled = self { return true }
        return false
    }
}

struct Redirector: Sendable {
    let behavior: Behavior
}

func makeSession(configuration: URLSessionConfiguration = .default) -> Session {
    Session(configuration: configuration)
}
