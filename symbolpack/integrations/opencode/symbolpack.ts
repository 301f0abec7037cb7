/**
 * symbolpack for OpenCode: the output of OpenCode's own `read` replaced by symbolpack's
 * answer (`tldrs read`), computed against exactly the answers still in the model's context.
 *
 * Written by `tldrs install opencode`, removed by `tldrs uninstall opencode`; `tldrs doctor`
 * checks this file is the one the installed symbolpack ships. OpenCode loads it from a
 * `plugin/` folder of its config (`.opencode/` in a project, `~/.config/opencode/`).
 *
 * How it answers, and why it is exact:
 * - `tool.execute.after` of `read`: OpenCode's read has run (permissions, a missing file,
 *   images, directories are its own); a text file's output (`<path>`, `<type>file</type>`)
 *   is replaced by symbolpack's answer, the `<system-reminder>` OpenCode adds (instructions
 *   it loaded for that folder) kept after it. The part's metadata (stored, never sent to
 *   the model) gets `symbolpack`: the answer's id, the sha256 of the output the model is
 *   sent, the file, the protocol response without its text.
 * - `experimental.chat.messages.transform` gets the very messages OpenCode is about to
 *   send: for each session the plugin keeps, per file, which answers they carry with
 *   their output intact, in order (`--present` of the next read or edit). A tool result
 *   compaction cleared (`[Old tool result content cleared]`), a compaction's summary, a
 *   reverted message, a fork's copy (its parts keep the call ids and metadata): nothing
 *   needs a special case, an answer left behind is simply absent.
 * - A barrier: where the context shows the model something of a file that no kept answer
 *   describes (OpenCode's own read of it, an answer another plugin rewrote, its own edit
 *   that could not be kept, a file the user attached, a message sent with an error), every
 *   answer about that file before it counts for nothing: its next read is a first read.
 * - The model's own `edit`, `write` and `apply_patch` are answers too (`tldrs session edit`,
 *   stored like a read's), so its next read is answered against its copy with its edit
 *   applied. A patch that adds at the end of a file, deletes or moves one is not kept.
 * - OpenCode runs the tool calls of one message concurrently. A call on a file is answered
 *   (or kept) only when every earlier call of that message on the file had finished and
 *   none began while it ran; it then leans on those earlier answers too. Otherwise it keeps
 *   OpenCode's own output, unkept: a barrier, never a guess at an order.
 * - Fail open: `tldrs` missing, failing, slow (30 s), a binary, sensitive or unreadable
 *   file (symbolpack's passthrough), an answer longer than OpenCode's read shows (2,000
 *   lines or 50 KB): OpenCode's own output stays, and is a barrier.
 * - A global copy registers nothing in a project that has its own copy.
 */

import { createHash, randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// The command that runs symbolpack, and where this copy is installed (`tldrs install
// opencode` writes these two lines).
const TLDRS: string[] = ["tldrs"];
const SCOPE: string = "project";
const FRONT_ARGS: string[] = ["--front", "opencode"]; // markers name OpenCode's read parameters
const TIMEOUT_MS = 30_000;
const KEY = "symbolpack"; // where a part's metadata keeps its answer
const MAX_LINES = 2000; // OpenCode's read shows no more lines than this...
const MAX_BYTES = 51_200; // ...nor more bytes
const DEFAULT_LIMIT = 2000; // lines OpenCode's read shows from an offset without a limit
const EDIT_TOOLS = new Set(["edit", "write", "apply_patch"]);
const NOTE =
	"\n\nWith symbolpack: a text file you have not read yet may come as a skeleton (signatures, docstrings, " +
	"imports; long bodies elided as `... A-B elided: offset=A limit=N`, which that offset and limit show). " +
	"A file you already hold comes as [UNCHANGED] (what you hold of it from earlier reads is still right) or " +
	"as only what changed ([DELTA] or [DIFF]). Its lines are numbered `N<TAB>text`; the text after the tab " +
	"is the file's.";

type Answer = {
	v: 1;
	kind: "read" | "edit" | "write" | "apply_patch";
	textSha256: string; // sha256 of the output the model is sent
	files: string[]; // every file the call touched (real paths)
	answers: { file: string; answerId: string }[]; // the answers kept, one per file
	response?: Record<string, unknown>; // a read's protocol response, without its text
	reminder?: boolean; // a read's output ends with OpenCode's <system-reminder>
};

type Entry = { file: string; answerId: string | null }; // null: a barrier
type Call = { tool: string; files: string[]; start: number; end?: number; kept?: Map<string, string> };
type Step = { calls: Map<string, Call> };
type Run = { code: number | null; stdout: string; stderr: string };

function sha256(text: string): string {
	return createHash("sha256").update(text, "utf8").digest("hex");
}

function realFile(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function answerOf(metadata: any): Answer | null {
	const answer = metadata?.[KEY];
	if (!answer || answer.v !== 1 || typeof answer.textSha256 !== "string" || !Array.isArray(answer.answers)) return null;
	return answer as Answer;
}

function runTldrs(args: string[], cwd: string, input?: string): Promise<Run> {
	return new Promise((done) => {
		try {
			const child = execFile(
				TLDRS[0],
				[...TLDRS.slice(1), ...args],
				{ cwd, timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
				(error: any, stdout, stderr) => {
					const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
					done({ code, stdout: String(stdout ?? ""), stderr: String(stderr ?? "") });
				},
			);
			child.stdin?.on("error", () => {}); // a child that never reads: its exit says so
			child.stdin?.end(input ?? "");
		} catch (error) {
			done({ code: null, stdout: "", stderr: String(error) });
		}
	});
}

function parseJson(stdout: string): Record<string, any> | null {
	try {
		const data = JSON.parse(stdout);
		return data && typeof data === "object" ? data : null;
	} catch {
		return null;
	}
}

function newAnswerId(callID: string): string {
	const base = String(callID).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80);
	return `${base}-${randomBytes(6).toString("hex")}`;
}

function sessionArg(sessionID: string): string {
	return `opencode-${String(sessionID).replace(/[^A-Za-z0-9._-]/g, "_")}`.slice(0, 128);
}

/** The file operations of an `apply_patch` call, read as OpenCode reads its patch text. */
type PatchOp =
	| { type: "add"; path: string; content: string }
	| { type: "delete"; path: string }
	| { type: "update"; path: string; move?: string; chunks: { old: string[]; new: string[] }[] };

function parsePatch(patchText: string): PatchOp[] {
	let text = String(patchText ?? "").trim();
	const heredoc = text.match(/^(?:cat\s+)?<<['"]?(\w+)['"]?\s*\n([\s\S]*?)\n\1\s*$/);
	if (heredoc) text = heredoc[2];
	const lines = text.split("\n");
	const begin = lines.findIndex((l) => l.trim() === "*** Begin Patch");
	const end = lines.findIndex((l) => l.trim() === "*** End Patch");
	if (begin < 0 || end < 0 || begin >= end) return [];
	const ops: PatchOp[] = [];
	let i = begin + 1;
	while (i < end) {
		const line = lines[i];
		if (line.startsWith("*** Add File:")) {
			const path = line.slice(13).trim();
			let content = "";
			i++;
			while (i < end && !lines[i].startsWith("***")) {
				if (lines[i].startsWith("+")) content += lines[i].slice(1) + "\n";
				i++;
			}
			if (content.endsWith("\n")) content = content.slice(0, -1);
			if (path) ops.push({ type: "add", path, content });
		} else if (line.startsWith("*** Delete File:")) {
			const path = line.slice(16).trim();
			if (path) ops.push({ type: "delete", path });
			i++;
		} else if (line.startsWith("*** Update File:")) {
			const path = line.slice(16).trim();
			let move: string | undefined;
			i++;
			if (i < end && lines[i].startsWith("*** Move to:")) move = lines[i++].slice(12).trim();
			const chunks: { old: string[]; new: string[] }[] = [];
			while (i < end && !lines[i].startsWith("***")) {
				if (!lines[i].startsWith("@@")) {
					i++;
					continue;
				}
				i++;
				const chunk = { old: [] as string[], new: [] as string[] };
				while (i < end && !lines[i].startsWith("@@") && !lines[i].startsWith("***")) {
					const l = lines[i];
					if (l.startsWith(" ")) {
						chunk.old.push(l.slice(1));
						chunk.new.push(l.slice(1));
					} else if (l.startsWith("-")) chunk.old.push(l.slice(1));
					else if (l.startsWith("+")) chunk.new.push(l.slice(1));
					i++;
				}
				if (i < end && lines[i] === "*** End of File") i++;
				chunks.push(chunk);
			}
			if (path) ops.push({ type: "update", path, move, chunks });
		} else i++;
	}
	return ops;
}

/** Is a project copy of this plugin between *directory* and *worktree* (OpenCode loads both)? */
function projectHasItsOwnCopy(directory: string, worktree: string): boolean {
	let dir = resolve(directory);
	const top = resolve(worktree || directory);
	for (;;) {
		for (const folder of ["plugin", "plugins"]) {
			try {
				const text = readFileSync(join(dir, ".opencode", folder, "symbolpack.ts"), "utf8");
				if (text.includes("Written by `tldrs install opencode`")) return true;
			} catch {
				// none here
			}
		}
		if (dir === top || dirname(dir) === dir) return false;
		dir = dirname(dir);
	}
}

export default async function symbolpack(input: any) {
	const directory: string = String(input?.directory ?? process.cwd());
	const worktree: string = String(input?.worktree ?? directory);
	if (SCOPE === "global" && projectHasItsOwnCopy(directory, worktree)) return {};

	const contexts = new Map<string, Entry[]>(); // session -> what its last request carried
	const steps = new Map<string, Step>(); // session -> the calls since that request
	let clock = 0;

	const absolute = (raw: unknown) => {
		const p = String(raw ?? "");
		return isAbsolute(p) ? p : resolve(directory, p);
	};

	/** The files a tool call touches (real paths), from its arguments and, once run, its metadata. */
	const filesOf = (tool: string, args: any, metadata?: any): string[] => {
		if (tool === "read" || tool === "edit" || tool === "write") {
			return typeof args?.filePath === "string" ? [realFile(absolute(args.filePath))] : [];
		}
		if (tool !== "apply_patch") return [];
		const out = new Set<string>();
		for (const f of Array.isArray(metadata?.files) ? metadata.files : []) {
			if (typeof f?.filePath === "string") out.add(realFile(f.filePath));
			if (typeof f?.movePath === "string") out.add(realFile(f.movePath));
		}
		for (const op of parsePatch(args?.patchText)) {
			out.add(realFile(absolute(op.path)));
			if (op.type === "update" && op.move) out.add(realFile(absolute(op.move)));
		}
		return [...out];
	};

	/** What a request's messages show of each file, in order: kept answers and barriers. */
	const entriesOf = (messages: any[]): Entry[] => {
		const out: Entry[] = [];
		for (const message of messages) {
			const info = message?.info ?? {};
			const parts: any[] = Array.isArray(message?.parts) ? message.parts : [];
			if (info.role === "user") {
				for (const part of parts) {
					if (part?.type === "file" && typeof part.url === "string" && part.url.startsWith("file:")) {
						try {
							out.push({ file: realFile(fileURLToPath(part.url)), answerId: null });
						} catch {
							// not a local file
						}
					}
				}
				continue;
			}
			// OpenCode leaves out an assistant message with an error (but for some aborted ones):
			// whatever its calls did, nothing of them is an answer the model is sure to hold
			const unsure = Boolean(info.error);
			for (const part of parts) {
				if (part?.type !== "tool" || (part.tool !== "read" && !EDIT_TOOLS.has(part.tool))) continue;
				const state = part.state ?? {};
				if (state.status !== "completed") continue; // an error or an interrupted call: no output
				const cleared = Boolean(state.time?.compacted);
				if (part.tool === "read" && cleared && !unsure) continue; // its text left the context
				const answer = answerOf(state.metadata);
				const intact = !unsure && !cleared && answer !== null && typeof state.output === "string"
					&& sha256(state.output) === answer.textSha256;
				for (const file of filesOf(part.tool, state.input, state.metadata)) {
					const kept = intact ? answer!.answers.find((a) => a.file === file) : undefined;
					out.push({ file, answerId: kept ? kept.answerId : null });
				}
			}
		}
		return out;
	};

	/** The answers about *file* the model holds when *call* runs, oldest first; null when an
	 * earlier call of the same message on the file had not finished before it began. */
	const presentFor = (sessionID: string, file: string, call: Call, callID: string): string[] | null => {
		let present: string[] = [];
		for (const entry of contexts.get(sessionID) ?? []) {
			if (entry.file !== file) continue;
			if (entry.answerId === null) present = [];
			else present.push(entry.answerId);
		}
		const earlier = [...(steps.get(sessionID)?.calls ?? new Map()).entries()]
			.filter(([id, c]) => id !== callID && c.start < call.start && c.files.includes(file))
			.sort((a, b) => a[1].start - b[1].start);
		for (const [, c] of earlier) {
			if (c.end === undefined || c.end > call.start) return null;
			const id = c.kept?.get(file);
			if (id) present.push(id);
			else present = [];
		}
		return present;
	};

	/** Did another call on *file* begin while *call* ran? */
	const overtaken = (sessionID: string, file: string, call: Call, callID: string): boolean => {
		for (const [id, c] of steps.get(sessionID)?.calls ?? new Map()) {
			if (id !== callID && c.start > call.start && c.files.includes(file)) return true;
		}
		return false;
	};

	const stepOf = (sessionID: string): Step => {
		let step = steps.get(sessionID);
		if (!step) steps.set(sessionID, (step = { calls: new Map() }));
		return step;
	};

	const begin = (sessionID: string, callID: string, tool: string, args: any): Call => {
		const step = stepOf(sessionID);
		let call = step.calls.get(callID);
		if (!call) step.calls.set(callID, (call = { tool, files: filesOf(tool, args), start: ++clock }));
		return call;
	};

	const finish = (call: Call, kept: Map<string, string>) => {
		call.kept = kept;
		call.end = ++clock;
	};

	async function answerRead(input: any, output: any, call: Call): Promise<Map<string, string>> {
		const kept = new Map<string, string>();
		const original = output?.output;
		if (typeof original !== "string" || !original.startsWith("<path>")) return kept; // an image, a PDF
		const head = original.indexOf("</path>\n<type>file</type>\n<content>");
		const close = original.lastIndexOf("</content>");
		if (head < 0 || close < 0) return kept; // a directory
		const args = input.args ?? {};
		const path = absolute(args.filePath);
		const file = realFile(path);
		const present = presentFor(input.sessionID, file, call, input.callID);
		if (present === null) return kept;
		const answerId = newAnswerId(input.callID);
		const argv = ["read", path, "--format", "json", "--session-id", sessionArg(input.sessionID),
			"--answer-id", answerId, "--present", present.join(","), ...FRONT_ARGS];
		if (args.offset !== undefined || args.limit !== undefined) {
			argv.push("--offset", String(Math.max(1, Math.trunc(Number(args.offset) || 1))));
			argv.push("--limit", String(Math.max(1, Math.trunc(Number(args.limit ?? DEFAULT_LIMIT)))));
		}
		const run = await runTldrs(argv, directory);
		const response = parseJson(run.stdout);
		if (!response || run.code !== 0 || typeof response.text !== "string" || response.mode === "passthrough"
			|| response.mode === "error" || overtaken(input.sessionID, file, call, input.callID)) {
			return kept; // fail open: OpenCode's own output
		}
		const { text, ...rest } = response;
		if (Buffer.byteLength(text, "utf8") > MAX_BYTES || text.split("\n").length > MAX_LINES) return kept;
		const reminder = original.slice(close + "</content>".length); // "" or OpenCode's <system-reminder>
		const sent = text + reminder;
		const id = String(response.answer_id ?? answerId);
		const answer: Answer = { v: 1, kind: "read", textSha256: sha256(sent), files: [file],
			answers: [{ file, answerId: id }], response: rest, ...(reminder ? { reminder: true } : {}) };
		output.output = sent;
		output.metadata = { ...(output.metadata ?? {}), [KEY]: answer };
		kept.set(file, id);
		return kept;
	}

	/** `tldrs session edit` of one file: true when kept. */
	async function keepOne(input: any, call: Call, path: string, mode: "--edits" | "--write", stdin: string,
		answerId: string): Promise<boolean> {
		const file = realFile(path);
		const present = presentFor(input.sessionID, file, call, input.callID);
		if (present === null) return false;
		const run = await runTldrs(["session", "edit", path, "--answer-id", answerId, "--present", present.join(","),
			mode], directory, stdin);
		return run.code === 0;
	}

	async function keepEdit(input: any, output: any, call: Call): Promise<Map<string, string>> {
		const kept = new Map<string, string>();
		const args = input.args ?? {};
		const jobs: { path: string; mode: "--edits" | "--write"; stdin: string }[] = [];
		const unkept = new Set<string>();
		if (input.tool === "write") {
			if (typeof args.content !== "string") return kept;
			jobs.push({ path: absolute(args.filePath), mode: "--write", stdin: args.content.replace(/^\uFEFF/, "") });
		} else if (input.tool === "edit") {
			const path = absolute(args.filePath);
			if (args.oldString === "") {
				jobs.push({ path, mode: "--write", stdin: String(args.newString ?? "").replace(/^\uFEFF/, "") });
			} else {
				// OpenCode matches and writes with the file's own line ending
				const crlf = readFileSync(path, "utf8").includes("\r\n");
				const ending = (t: unknown) => {
					const lf = String(t ?? "").replace(/\r\n/g, "\n");
					return crlf ? lf.replace(/\n/g, "\r\n") : lf;
				};
				jobs.push({ path, mode: "--edits", stdin: JSON.stringify([{ old: ending(args.oldString),
					new: ending(args.newString), replace_all: Boolean(args.replaceAll) }]) });
			}
		} else {
			for (const op of parsePatch(args.patchText)) {
				const path = absolute(op.path);
				if (op.type === "add") {
					const content = op.content === "" || op.content.endsWith("\n") ? op.content : op.content + "\n";
					jobs.push({ path, mode: "--write", stdin: content });
				} else if (op.type === "update" && !op.move && op.chunks.length
					&& op.chunks.every((c) => c.old.length > 0)) {
					const crlf = readFileSync(path, "utf8").includes("\r\n");
					const nl = crlf ? "\r\n" : "\n";
					jobs.push({ path, mode: "--edits", stdin: JSON.stringify(op.chunks.map((c) => ({
						old: c.old.join(nl) + nl, new: c.new.length ? c.new.join(nl) + nl : "" }))) });
				} else {
					unkept.add(realFile(path)); // a move, a deletion, an insertion at the end
					if (op.type === "update" && op.move) unkept.add(realFile(absolute(op.move)));
				}
			}
		}
		for (const job of jobs) {
			const file = realFile(job.path);
			if (unkept.has(file) || kept.has(file)) { // one file twice in a patch: neither is kept
				kept.delete(file);
				unkept.add(file);
				continue;
			}
			const answerId = newAnswerId(input.callID);
			if (await keepOne(input, call, job.path, job.mode, job.stdin, answerId)) kept.set(file, answerId);
			else unkept.add(file);
		}
		for (const file of [...kept.keys()]) {
			if (overtaken(input.sessionID, file, call, input.callID)) kept.delete(file);
		}
		if (kept.size && typeof output?.output === "string") {
			const answer: Answer = { v: 1, kind: input.tool, textSha256: sha256(output.output),
				files: [...new Set([...call.files, ...kept.keys(), ...unkept])],
				answers: [...kept].map(([file, answerId]) => ({ file, answerId })) };
			output.metadata = { ...(output.metadata ?? {}), [KEY]: answer };
		}
		return kept;
	}

	return {
		"experimental.chat.messages.transform": async (_input: any, output: any) => {
			try {
				const messages: any[] = Array.isArray(output?.messages) ? output.messages : [];
				const sessionID = messages.map((m) => m?.info?.sessionID).find((s) => typeof s === "string");
				if (!sessionID) return;
				contexts.set(sessionID, entriesOf(messages));
				steps.set(sessionID, { calls: new Map() }); // the calls of this request's answer come next
			} catch {
				// never break a request: the next read is answered against less
			}
		},

		"tool.execute.before": async (input: any, output: any) => {
			try {
				if (input?.tool === "read" || EDIT_TOOLS.has(input?.tool)) {
					begin(input.sessionID, input.callID, input.tool, output?.args ?? {});
				}
			} catch {
				// an unregistered call is registered when it ends
			}
		},

		"tool.execute.after": async (input: any, output: any) => {
			if (input?.tool !== "read" && !EDIT_TOOLS.has(input?.tool)) return;
			const call = begin(input.sessionID, input.callID, input.tool, input.args ?? {});
			let kept = new Map<string, string>();
			try {
				call.files = [...new Set([...call.files, ...filesOf(input.tool, input.args, output?.metadata)])];
				kept = input.tool === "read" ? await answerRead(input, output, call) : await keepEdit(input, output, call);
			} catch {
				// fail open: OpenCode's own output, no answer kept
			} finally {
				finish(call, kept);
			}
		},

		"tool.definition": async (input: any, output: any) => {
			if (input?.toolID === "read" && typeof output?.description === "string" && !output.description.includes(NOTE)) {
				output.description += NOTE;
			}
		},
	};
}
