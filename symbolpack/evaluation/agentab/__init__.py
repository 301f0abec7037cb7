"""The real-agent A/B: does a real LLM agent, reading through symbolpack, pay less?

Every other figure of the project comes from agents that cannot doubt (the
replay's simulated agent, scripted fake models). A real model can: it re-reads,
greps, and distrusts markers, and every call it makes re-sends its whole
context. This package measures that. An *episode* is a public repository at a
start commit and a few steps of questions (answers checked exactly) and edit
tasks (checked on the final file), with later real commits applied silently
between steps. A *run* is one agent doing one episode in one *arm*: `plain`
(Claude Code's Read output) or `symbolpack` (the same call answered by
`tldrs read --front claude` with answer ids and present sets, the agent's own
edits kept with `tldrs session edit`, as the Claude Code hooks do). The arms
differ in nothing else.

- `episode`: the episode file, its repository, the snippets that check answers.
- `lab`: a run directory and the agent's commands (`next read grep ls edit answer`).
- `grade`: one run's accuracy, calls, tokens and cost.
- `report`: runs grouped by episode and arm: the A/B table with its spread.
- `command`: `tldrs ab ...`, the command line.
"""
