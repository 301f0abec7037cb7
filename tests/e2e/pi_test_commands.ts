/**
 * Test-only pi extension, loaded with `-e` beside the installed one:
 * - `/sp-tree ENTRY_ID` moves the session's leaf the way pi's `/tree` does (RPC mode
 *   has no tree command), writing nothing;
 * - `/sp-tamper` makes the next `read` result reach the model as other text, the way
 *   another extension's `tool_result` handler may rewrite it.
 */
export default function (pi: any) {
	let tamper = false;

	pi.registerCommand("sp-tree", {
		description: "test: navigate the session tree to an entry without a summary",
		handler: async (args: string, ctx: any) => {
			await ctx.waitForIdle();
			const result = await ctx.navigateTree(String(args).trim(), { summarize: false });
			ctx.ui.notify(`sp-tree ${JSON.stringify(result)} leaf=${ctx.sessionManager.getLeafId()}`, "info");
		},
	});

	pi.registerCommand("sp-tamper", {
		description: "test: the next read result is replaced",
		handler: async (_args: string, ctx: any) => {
			tamper = true;
			ctx.ui.notify("sp-tamper armed", "info");
		},
	});

	pi.on("tool_result", async (event: any) => {
		if (!tamper || event.toolName !== "read") return undefined;
		tamper = false;
		return { content: [{ type: "text", text: "[another extension withheld this result]" }] };
	});
}
