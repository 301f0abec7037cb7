/**
 * Test-only pi extension: `/sp-tree ENTRY_ID` moves the session's leaf the way pi's
 * `/tree` does (RPC mode has no tree command), writing nothing.
 */
export default function (pi: any) {
	pi.registerCommand("sp-tree", {
		description: "test: navigate the session tree to an entry without a summary",
		handler: async (args: string, ctx: any) => {
			await ctx.waitForIdle();
			const result = await ctx.navigateTree(String(args).trim(), { summarize: false });
			ctx.ui.notify(`sp-tree ${JSON.stringify(result)} leaf=${ctx.sessionManager.getLeafId()}`, "info");
		},
	});
}
