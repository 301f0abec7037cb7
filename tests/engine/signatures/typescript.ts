import type { Options } from './options';

export const DEFAULT_RETRY = 2;

export const defaultHeaders: Record<string, string> = {
	accept: 'application/json',
};

export type Hook = (request: Request) => Promise<void> | void;

export type KyOptions = {
	retry?: number;
	hooks?: Hook[];
};

export interface ResponsePromise<T = unknown> extends Promise<Response> {
	json: <J = T>() => Promise<J>;
	text(): Promise<string>;
}

export enum Method {
	Get = 'get',
	Post = 'post',
}

export function normalize(method: string): Method;
export function normalize(method: undefined): undefined;
export function normalize(method?: string): Method | undefined {
	return method ? (method.toLowerCase() as Method) : undefined;
}

export const delay = async (ms: number): Promise<void> => new Promise(resolve => {
	setTimeout(resolve, ms);
});

const createStreamBody = (text: string) => new ReadableStream<Uint8Array>({
	start(controller) {
		controller.enqueue(new TextEncoder().encode(text));
		controller.close();
	},
});

const toOptions = (input: Partial<Options>): Options => ({
	retry: input.retry ?? DEFAULT_RETRY,
	hooks: input.hooks ?? [],
});

export const persist =
	<S,>(config: (set: (s: S) => void) => S) =>
	(set: (s: S) => void): S => {
		return config(set);
	};

export const isRetryable = (status: number): boolean => status >= 500;

export class HTTPError<T = unknown> extends Error {
	public response: Response;
	private readonly options: Options;

	constructor(response: Response, options: Options) {
		super(`Request failed with status ${response.status}`);
		this.response = response;
		this.options = options;
	}

	get status(): number { return this.response.status; }

	protected describe(): Record<string, unknown> { return {
		status: this.response.status,
	}; }

	onRetry = (attempt: number): void => {
		this.options.retry = attempt;
	};

	static async from<T>(
		response: Response,
		options: Options,
	): Promise<HTTPError<T>> {
		return new HTTPError<T>(response, options);
	}

	abstract toJSON(): object;
}

export default function ky(input: string, options: Options = {}): ResponsePromise {
	return request(input, options);
}

declare module './options' {
	interface Options {
		timeout?: number;
	}
}
