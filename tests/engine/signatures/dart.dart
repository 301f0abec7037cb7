/// An HTTP client backed by the platform.
library;

import 'dart:async';

const int defaultMaxRedirects = 5;

final Map<String, String> defaultHeaders = {
  'accept': '*/*',
};

typedef Listener = void Function(String event);

abstract class BaseClient implements Client {
  BaseClient();

  Future<Response> get(Uri url, {Map<String, String>? headers}) =>
      _sendUnstreamed('GET', url, headers);

  Future<String> read(Uri url) async {
    final response = await get(url);
    return response.body;
  }

  Stream<List<int>> chunks(Uri url) async* {
    yield* (await send(Request('GET', url))).stream;
  }

  Map<String, dynamic> _toJson() => <String, dynamic>{
        'maxRedirects': defaultMaxRedirects,
      };

  Future<void> close() async {}

  static Future<bool> _hasData(
    Stream<List<int>> stream,
  ) async {
    return !(await stream.isEmpty);
  }

  int get maxRedirects => defaultMaxRedirects;

  set listener(Listener value) { _listener = value; }

  Future<StreamedResponse> send(BaseRequest request);
}

class Response {
  final int statusCode;

  const Response(this.statusCode);

  factory Response.fromJson(Map<String, dynamic> json) { return Response(
    json['statusCode'] as int,
  ); }
}

mixin Logs on BaseClient {
  void log(String message) => print(message);
}

extension StatusText on Response {
  bool get isOk => statusCode == 200;
}

enum Method { get, post }

Future<void> main() async {
  final client = Client();
  await client.close();
}
