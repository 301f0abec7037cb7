/**
 * symbolpack for pi: the `read` tool answered by symbolpack (`tldrs read`), against
 * exactly the answers still in the model's context.
 *
 * Written by `tldrs install pi`, removed by `tldrs uninstall pi`; `tldrs doctor`
 * checks this file is the one the installed symbolpack ships.
 *
 * Why it is exact: every answer symbolpack gives is kept under an answer id, and the
 * tool result's `details` (stored in the session entry, never sent to the model)
 * carry that id and the sha256 of the text sent. On each read the extension rebuilds
 * what the next request will carry (`buildSessionContext` on the active branch) and
 * passes symbolpack the ids of the answers found there with their text intact
 * (`--present`): symbolpack answers `[UNCHANGED]`, a delta or a diff only against
 * content those answers gave the model. `/tree`, compaction, fork, clone, resume and
 * session switches need no special case: an answer left behind is simply absent.
 *
 * - A refresh (the `symbolpack_refresh` tool, the `/symbolpack-refresh` command) is an
 *   entry on the branch: answers about that file before it count as absent, on this
 *   branch only.
 * - The model's own `edit`/`write` are answers too: after pi's built-in tool wrote the
 *   file, `tldrs session edit` keeps the edit under an id stored in that result's
 *   `details` like a read's, so the next read is answered against the model's copy with
 *   its edit applied (its lines moved by its own edit only), not the copy before it. An
 *   edit that could not be kept (tldrs failing, two edits of one file running in
 *   parallel, a result another extension rewrote) is a barrier: answers about that file
 *   before it count for nothing, and its next read is a first read.
 * - Sequential execution: reads of one assistant message run one after another, so no
 *   two `tldrs` processes race and each sees its siblings' results.
 * - Fail open: images, PDFs, binaries, sensitive files (symbolpack's passthrough), a
 *   missing or failing `tldrs`: pi's built-in read answers (and is never leaned on).
 * - An answer longer than pi lets its own read show (2,000 lines or 50 KB) is left to
 *   pi's read, which truncates and says how to go on: a context is never flooded.
 * - A global copy registers nothing in a project that has its own copy: pi refuses to
 *   start when two extensions register the same tool.
 */

import { createHash, randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import {
	buildSessionContext,
	createReadToolDefinition,
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
} from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";

// The command that runs symbolpack, and where this copy is installed (`tldrs install pi`
// writes these two lines).
const TLDRS: string[] = ["tldrs"];
const SCOPE: string = "project";
const FRONT_ARGS: string[] = ["--front", "pi"]; // markers name this tool's parameters
const TIMEOUT_MS = 60_000;
const REFRESH_ENTRY = "symbolpack-refresh";
const DETAILS_KEY = "symbolpack"; // where a result's details keep its Answer

type Answer = {
	answerId: string; // symbolpack's id for this answer
	textSha256: string; // sha256 of the text the model was sent
	file: string; // the file's real path
	response?: Record<string, unknown>; // a read's protocol response, without its text
	edit?: "edit" | "write"; // the model's own edit of the file, kept by `tldrs session edit`
};

const EDIT_TOOLS = new Set(["edit", "write"]); // pi's built-in tools that change a file

const readSchema = Type.Object({
	path: Type.String({ description: "Path to the file to read (relative or absolute)" }),
	offset: Type.Optional(Type.Number({ description: "Line number to start reading from (1-indexed)" })),
	limit: Type.Optional(Type.Number({ description: "Maximum number of lines to read" })),
	symbol: Type.Optional(
		Type.String({ description: "Read one symbol whole (a function, class or method, e.g. Cart.add)" }),
	),
	fresh: Type.Optional(
		Type.Boolean({ description: "Show the lines in full even if you already have them (no skeleton, no delta)" }),
	),
});

function sha256(text: string): string {
	return createHash("sha256").update(text, "utf8").digest("hex");
}

function resolvePath(cwd: string, raw: string): string {
	let p = raw.startsWith("@") ? raw.slice(1) : raw;
	if (p === "~") p = homedir();
	else if (p.startsWith("~/")) p = homedir() + p.slice(1);
	return isAbsolute(p) ? p : resolve(cwd, p);
}

function realFile(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function textOf(message: any): string | null {
	const parts = Array.isArray(message?.content) ? message.content : [];
	if (parts.length !== 1 || parts[0]?.type !== "text" || typeof parts[0].text !== "string") return null;
	return parts[0].text;
}

function answerOf(message: any): Answer | null {
	const answer = message?.details?.[DETAILS_KEY];
	if (!answer || typeof answer.answerId !== "string" || typeof answer.textSha256 !== "string") return null;
	return answer as Answer;
}

/** The file an own edit (a built-in `edit`/`write` call's arguments) changed. */
function editedFile(cwd: string, args: any): string | null {
	return typeof args?.path === "string" ? realFile(resolvePath(cwd, args.path)) : null;
}

/** The ids of the answers about *file* that the next request will carry, oldest first:
 * symbolpack's reads, and the model's own edits it kept. An edit of the file it did not
 * keep clears the list: the model's copy then holds something no answer describes. */
export function presentAnswers(sessionManager: any, file: string, cwd: string): string[] {
	const entries = sessionManager.getEntries();
	const leaf = sessionManager.getLeafId();
	const { messages } = buildSessionContext(entries, leaf);
	// a refresh of the file on this branch: answers given before it count for nothing
	const branch = sessionManager.getBranch();
	const place = new Map<string, number>();
	let barrier = -1;
	branch.forEach((entry: any, index: number) => {
		if (entry.type === "custom" && entry.customType === REFRESH_ENTRY && entry.data?.file === file) barrier = index;
		if (entry.type === "message" && entry.message?.role === "toolResult") {
			const answer = answerOf(entry.message);
			if (answer) place.set(answer.answerId, index);
			if (entry.message.details?.[REFRESH_ENTRY]?.file === file && !entry.message.isError) barrier = index;
		}
	});
	const out: string[] = [];
	const calls = new Map<string, any>(); // tool call id -> its arguments
	for (const message of messages as any[]) {
		if (message.role === "assistant" && Array.isArray(message.content)) {
			for (const part of message.content) if (part?.type === "toolCall") calls.set(part.id, part.arguments);
		}
		if (message.role !== "toolResult" || message.isError) continue;
		const answer = answerOf(message);
		const text = textOf(message);
		const intact = answer !== null && text !== null && sha256(text) === answer.textSha256;
		if (EDIT_TOOLS.has(message.toolName)) {
			if ((answer?.file ?? editedFile(cwd, calls.get(message.toolCallId))) !== file) continue;
			if (!intact || !answer?.edit) out.length = 0; // an edit not kept: nothing before it holds
			else if ((place.get(answer.answerId) ?? -1) >= barrier) out.push(answer.answerId);
			continue;
		}
		if (message.toolName !== "read" || !answer || answer.file !== file) continue;
		if (!intact) continue; // changed since: not our answer
		if ((place.get(answer.answerId) ?? -1) < barrier) continue;
		out.push(answer.answerId);
	}
	return out;
}

type Run = { code: number | null; stdout: string; stderr: string };

function runTldrs(args: string[], cwd: string, signal?: AbortSignal, input?: string): Promise<Run> {
	return new Promise((done) => {
		const child = execFile(
			TLDRS[0],
			[...TLDRS.slice(1), ...args],
			{ cwd, timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, signal, encoding: "utf8" },
			(error: any, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
				done({ code, stdout: String(stdout ?? ""), stderr: String(stderr ?? "") });
			},
		);
		child.stdin?.on("error", () => {}); // a child that never reads (not found, failing): its exit says so
		child.stdin?.end(input ?? "");
	});
}

function sessionIdOf(ctx: any): string {
	const id = String(ctx.sessionManager.getSessionId() ?? "none").replace(/[^A-Za-z0-9._-]/g, "_");
	return `pi-${id}`.slice(0, 128);
}

function newAnswerId(toolCallId: string): string {
	const base = toolCallId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80);
	return `${base}-${randomBytes(6).toString("hex")}`;
}

function parseResponse(stdout: string): Record<string, any> | null {
	try {
		const data = JSON.parse(stdout);
		return data && typeof data === "object" ? data : null;
	} catch {
		return null;
	}
}

/** pi loads the project's extensions and the global ones, and refuses to start when two
 * register the same tool: the global copy stands aside where the project has its own. */
function projectHasItsOwnCopy(): boolean {
	try {
		const text = readFileSync(join(process.cwd(), ".pi", "extensions", "symbolpack.ts"), "utf8");
		return text.includes("Written by `tldrs install pi`");
	} catch {
		return false;
	}
}

export default function symbolpack(pi: any) {
	if (SCOPE === "global" && projectHasItsOwnCopy()) return;
	const builtins = new Map<string, any>();
	const builtin = (cwd: string) => {
		let tool = builtins.get(cwd);
		if (!tool) builtins.set(cwd, (tool = createReadToolDefinition(cwd)));
		return tool;
	};

	pi.registerTool({
		name: "read",
		label: "read",
		description:
			"Read a file. Text files you have not seen come as a skeleton: signatures, docstrings and imports, with " +
			"long bodies elided and a marker naming how to read them (a symbol, or offset/limit). A file you already " +
			"hold comes as [UNCHANGED] or as only what changed ([DELTA]/[DIFF]) - the lines you hold elsewhere in " +
			"this conversation are still right. Use symbol to read one function, class or method whole; offset/limit " +
			"for a range; fresh: true to see the lines in full once more. Images are sent as attachments.",
		promptSnippet: "Read file contents (skeletons first, then only what changed)",
		promptGuidelines: [
			"Use read to examine files instead of cat or sed; use read with symbol to see an elided body before editing it.",
		],
		parameters: readSchema,
		executionMode: "sequential",

		async execute(toolCallId: string, params: any, signal: AbortSignal | undefined, onUpdate: any, ctx: any) {
			const plain = () => builtin(ctx.cwd).execute(toolCallId, { path: params.path, offset: params.offset, limit: params.limit }, signal, onUpdate, ctx);
			const absolute = resolvePath(ctx.cwd, String(params.path ?? ""));
			const file = realFile(absolute);
			const answerId = newAnswerId(toolCallId);
			const args = ["read", absolute, "--format", "json", "--session-id", sessionIdOf(ctx), "--answer-id", answerId];
			args.push("--present", presentAnswers(ctx.sessionManager, file, ctx.cwd).join(","), ...FRONT_ARGS);
			if (params.symbol) args.push("--symbol", String(params.symbol));
			else {
				if (params.offset !== undefined) args.push("--offset", String(Math.trunc(params.offset)));
				if (params.limit !== undefined) args.push("--limit", String(Math.trunc(params.limit)));
			}
			if (params.fresh) args.push("--full");
			let run: Run;
			try {
				run = await runTldrs(args, ctx.cwd, signal);
			} catch {
				run = { code: null, stdout: "", stderr: "" };
			}
			const response = parseResponse(run.stdout);
			if (response && response.mode === "error" && params.symbol) {
				throw new Error(String(response.error ?? "no such symbol")); // the built-in read has no symbols
			}
			if (!response || run.code !== 0 || typeof response.text !== "string" || response.mode === "passthrough" || response.mode === "error") {
				if (params.symbol) throw new Error(`symbolpack could not read ${params.path} (${run.stderr.trim().split("\n").pop() || "tldrs failed"})`);
				return plain(); // fail open: pi's own read (images, binaries, sensitive files, no tldrs)
			}
			const { text, ...rest } = response;
			if (Buffer.byteLength(text, "utf8") > DEFAULT_MAX_BYTES || text.split("\n").length > DEFAULT_MAX_LINES) {
				return plain(); // pi's read truncates it and says how to continue; this answer is never present
			}
			const answer: Answer = { answerId: String(response.answer_id ?? answerId), textSha256: sha256(text), file, response: rest };
			return { content: [{ type: "text", text }], details: { [DETAILS_KEY]: answer } };
		},
	});

	// The model's own edits. pi awaits its event queue before `tool_call` handlers, so with
	// one registered a call's earlier siblings (in a sequential batch) are in the session
	// when it runs; `mutations` names the edit calls of each file not yet settled there, so
	// two edits of one file running in parallel (neither sees the other) are never kept.
	const mutations = new Map<string, string>(); // tool call id -> the file it edits
	const settled = (sessionManager: any, id: string) =>
		sessionManager.getEntries().some((e: any) => e.type === "message" && e.message?.toolCallId === id);

	pi.on("tool_call", (event: any, ctx: any) => {
		if (!EDIT_TOOLS.has(event.toolName)) return undefined;
		const file = editedFile(ctx.cwd, event.input);
		if (file) mutations.set(event.toolCallId, file);
		return undefined;
	});
	pi.on("agent_end", () => {
		mutations.clear(); // every call of the run is settled (or never ran)
	});

	pi.on("tool_result", async (event: any, ctx: any) => {
		if (!EDIT_TOOLS.has(event.toolName) || event.isError) return undefined;
		try {
			const file = editedFile(ctx.cwd, event.input);
			const text = textOf(event);
			if (!file || text === null) return undefined;
			for (const [id, other] of mutations) {
				if (id === event.toolCallId || settled(ctx.sessionManager, id)) {
					if (id !== event.toolCallId) mutations.delete(id);
				} else if (other === file) {
					return undefined; // another edit of this file in flight: neither is kept
				}
			}
			const absolute = resolvePath(ctx.cwd, String(event.input.path));
			const answerId = newAnswerId(event.toolCallId);
			const args = ["session", "edit", absolute, "--answer-id", answerId, "--present",
				presentAnswers(ctx.sessionManager, file, ctx.cwd).join(",")];
			let input: string;
			if (event.toolName === "write") {
				if (typeof event.input.content !== "string") return undefined;
				args.push("--write");
				input = event.input.content;
			} else {
				// pi matches LF-normalized texts and writes the file's own line ending back
				const crlf = /^[^\n]*\r\n/.test(readFileSync(absolute, "utf8"));
				const ending = (t: string) => {
					const lf = String(t).replace(/\r\n/g, "\n").replace(/\r/g, "\n");
					return crlf ? lf.replace(/\n/g, "\r\n") : lf;
				};
				const edits = Array.isArray(event.input.edits) ? event.input.edits : [];
				if (!edits.length) return undefined;
				args.push("--edits", "--together");
				input = JSON.stringify(edits.map((e: any) => ({ old: ending(e.oldText), new: ending(e.newText) })));
			}
			const run = await runTldrs(args, ctx.cwd, undefined, input);
			if (run.code !== 0) return undefined; // not kept: a barrier for the file's next read
			const answer: Answer = { answerId, textSha256: sha256(text), file, edit: event.toolName };
			return { details: { ...(event.details ?? {}), [DETAILS_KEY]: answer } };
		} catch {
			return undefined; // never fail the edit itself: an edit not kept is a barrier
		}
	});

	const refreshNote = (path: string) =>
		`${path}: your earlier reads of it no longer count; its next read is answered as a first read`;

	pi.registerTool({
		name: "symbolpack_refresh",
		label: "refresh",
		description:
			"Forget what the read tool gave you of a file: its next read shows the file as a first read would. " +
			"Use it when you are unsure your copy of a file is right.",
		parameters: Type.Object({ path: Type.String({ description: "Path of the file (relative or absolute)" }) }),
		async execute(_toolCallId: string, params: any, _signal: any, _onUpdate: any, ctx: any) {
			const file = realFile(resolvePath(ctx.cwd, String(params.path ?? "")));
			return { content: [{ type: "text", text: refreshNote(params.path) }], details: { [REFRESH_ENTRY]: { file } } };
		},
	});

	pi.registerCommand("symbolpack-refresh", {
		description: "Forget what read gave the model of a file, on this branch (its next read is a first read)",
		handler: async (args: string, ctx: any) => {
			const path = String(args ?? "").trim();
			if (!path) {
				ctx.ui.notify("usage: /symbolpack-refresh PATH", "error");
				return;
			}
			pi.appendEntry(REFRESH_ENTRY, { file: realFile(resolvePath(ctx.cwd, path)) });
			ctx.ui.notify(refreshNote(path), "info");
		},
	});

	pi.registerCommand("symbolpack-status", {
		description: "symbolpack's answers in this conversation: reads, tokens saved, answers in the context",
		handler: async (_args: string, ctx: any) => {
			const { messages } = buildSessionContext(ctx.sessionManager.getEntries(), ctx.sessionManager.getLeafId());
			const held = (messages as any[]).filter((m) => m.role === "toolResult" && answerOf(m)).length;
			const run = await runTldrs(["session", "status", "--json", "--session-id", sessionIdOf(ctx)], ctx.cwd);
			const status = parseResponse(run.stdout);
			const line = status
				? `symbolpack: ${status.reads} reads, ${status.tokens} tokens sent for ${status.full_tokens} (saved ` +
					`${status.saved_tokens}); ${held} answers in the context`
				: `symbolpack: tldrs did not answer (${run.stderr.trim().split("\n").pop() || `${TLDRS.join(" ")} not found`}); reads fall back to pi's own`;
			ctx.ui.notify(line, status ? "info" : "warning");
		},
	});
}
