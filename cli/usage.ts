/** `perflow --help`. */
export const USAGE = `usage: perflow <command> [options]
  worker [--nexus-agents DIR] [--deployment NAME --build-id ID]
                                           run a worker (env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*, TEMPORAL_API_KEY, TEMPORAL_PROFILE, PERFLOW_TASK_QUEUE, MONGODB_URI); --nexus-agents: serve DIR's agent files through Nexus;
                                           --deployment/--build-id (PERFLOW_DEPLOYMENT, PERFLOW_BUILD_ID): a Worker Deployment version, runs pinned to it
  run --agent FILE [--question TEXT] [--memory-id ID [--on-busy reject|enqueue|interrupt]] [--param key=value]... [--webhook URL] [--follow|--wait] [--json]
                                           --webhook: a signed POST to URL when the run ends (host allowed by PERFLOW_ALLOW_HOSTS; docs/webhooks.md)
  status ID [--json]                       progress of a run
  watch ID [--from OFFSET] [--json]        a run's events live until it ends: model text as written, plans, steps, tools, decisions
                                           (--json: one event per line; --from: re-attach at that event offset)
  result ID [--json]                       result of a run (waits for it)
  list [--status running|completed|tripped|failed] [--agent NAME] [--tenant ID] [--fingerprint F] [--schedule ID] [--json]  runs (with their fingerprints)
  cancel ID [--json]                       cancel a run
  memory MEMORY_ID [--tenant ID] [--json]  a conversation from MongoDB: questions, steps, tool calls, results
  history ID --out FILE [--json]           save a run's event history as JSON
  replay ID | --history FILE [--workflow-id ID] [--workflows PATH] [--json]  replay a history against the current workflow code (or the workflows module at PATH)
  reset ID [--to last-workflow-task|first-workflow-task|failed-activity|EVENT_ID] [--reason TEXT] [--json]
  fork ID --from-step N [--agent FILE] [--param key=value]... [--question TEXT] [--workflow-id ID] [--follow|--wait] [--json]
                                           a new run reusing ID's first N-1 steps, then planning at step N with the new settings
  diff A B [--json]                        two runs side by side: settings, plans, steps, tokens, durations, responses
  pending [--tenant ID] [--json]           runs waiting for a person's decision (or paused, or at their dollar budget)
  approve ID [--steps-file F | --step TEXT...]  approve the plan awaiting approval (with steps: an edited plan)
  reject ID --reason TEXT [--stop]         reject the plan: the planner is asked again with the reason (--stop: end the run;
                                           at the dollar budget: end it with the work so far)
  approve-tool ID [--input JSON]           approve the tool call awaiting approval (with --input: run it with that input)
  deny-tool ID --reason TEXT               deny the tool call: the model gets the reason as its observation
  guide ID TEXT                            guidance for the next planning call
  pause ID | resume ID                     hold the run at its next point between steps / let it go on
  raise-budget ID --usd N                  raise the run's max_cost_usd to N dollars: a run waiting at its budget goes on
  budget set --tenant ID --usd-per-day N [--by NAME] [--json]
                                           the tenant's daily dollar cap (UTC days): its runs pause before a model call at it;
                                           its running runs are told: a waiting one goes on when it is above the day's spend
  budget show [--tenant ID] [--json]       tenants' daily caps with today's spend and what is left
  codec-server [--port P] [--host H] [--ui-origin URL]... [--token T] [--allowed-host NAME]...
                                           serve /encode and /decode for the Temporal Web UI with PERFLOW_ENCRYPTION_KEYS
                                           (default port 8888 on 127.0.0.1; CORS for PERFLOW_TEMPORAL_UI_URL's origin;
                                           token also from PERFLOW_CODEC_TOKEN, required off loopback unless
                                           --unsafe-no-token); stops on Ctrl-C
  console [--port P] [--host H] [--token T | --tokens FILE] [--agents DIR] [--allowed-host NAME]... [--allow-inline-agents]
                                           the web console: start, watch, steer, fork and compare runs (default 127.0.0.1:7300;
                                           prints its URL with a new token unless --token T or PERFLOW_CONSOLE_TOKEN gives one;
                                           --tokens FILE: {"TOKEN": {"tenant": "ID" or "*"}}, each token seeing its tenant only;
                                           --unsafe-no-token, loopback only, turns it off); stops on Ctrl-C
  mcp --agents DIR [--http PORT [--host H] [--token T] [--allowed-host NAME]...]
                                           an MCP server offering each agent file of DIR as a tool (a call is a run: progress
                                           notifications, cancellation, MCP Tasks); over stdio, or streamable HTTP at /mcp
                                           (127.0.0.1 by default; token from --token, PERFLOW_MCP_TOKEN or printed; --unsafe-no-token,
                                           loopback only, turns it off); stops on Ctrl-C or when stdin closes
  a2a --agents DIR [--port P] [--host H] [--token T | --tokens FILE] [--default NAME] [--allowed-host NAME]...
                                           each agent file of DIR as an A2A agent (JSON-RPC and HTTP+JSON, A2A v1.0 and v0.3):
                                           its card at /a2a/AGENT/.well-known/agent-card.json (--default NAME, or the only one,
                                           also at /.well-known/agent-card.json); a task is a run (default 127.0.0.1:7400; prints a
                                           new token unless --token T, or --tokens FILE with their tenants, gives them); stops on Ctrl-C
  eval SUITE [--agent FILE] [--param key=value]... [--concurrency N] [--min-pass R] [--junit FILE] [--json]
                                           run a suite's cases as runs (at most N at once, default 4), score them, print a table
                                           and the pass rate; exit 1 when it is below R (default 1.0)
  eval show ID [--json] | eval list [--json]  an eval's result (waits for a running one) / the latest evals
  eval compare A B [--json]                per case improved, regressed or same, with the run diff of each changed case
  eval from-runs [--agent NAME] [--tenant T] [--since DATE] [--limit N] [--failed-check NAME | --score-below X] --out FILE [--force]
                                           a suite from the newest completed runs (their answers as references), or from
                                           the runs online scoring scored low (the checks they failed)
  scores [--agent NAME] [--since 7d|DATE] [--by fingerprint] [--tenant T] [--json]
                                           pass rates of the runs the agent file's scoring scored, per check and per agent
                                           (--by fingerprint: per version of the agent)
  schedule create ID --agent FILE --question TEXT (--cron "EXPR" | --every DURATION | --at TIME) [--timezone ZONE]
      [--overlap skip|buffer-one|buffer-all|cancel-other|allow-all] [--catchup-window D] [--pause-on-failure]
      [--memory-id ID | --same-memory] [--param key=value]... [--tenant T] [--webhook URL] [--note TEXT] [--json]
                                           run the agent on a clock: each firing starts a run ID-<time> (docs/schedules.md);
                                           --same-memory: every run continues one conversation; overlap default skip
  schedule list [--tenant T] [--json]      perflow's schedules: agent, timing, next run
  schedule describe|pause|unpause|trigger|delete ID [--note TEXT] [--tenant T] [--json]
                                           describe: next runs in its time zone, recent runs with status and cost;
                                           trigger: fire now (under its overlap policy); delete: running runs go on
  schedule backfill ID --from TIME --to TIME [--json]  the runs of a past window's firings
  schedule update ID [create's options]    change it: the options given replace the schedule's
  (decision commands take --by NAME, recorded with the decision, and --json)
Options for all: --json (one JSON document on stdout), --verbose (stack traces), --help`;

/**
 * `perflow COMMAND --help`: the usage lines of that command (its first line names it, the lines
 * indented past the option column continue it) and the options for all.
 */
export function commandUsage(command: string): string {
  const lines = USAGE.split('\n');
  const picked: string[] = [];
  let inCommand = false;
  for (const line of lines.slice(1)) {
    const head = /^ {2}(\S.*)$/.exec(line);
    if (head) inCommand = head[1].split(/\s+/)[0] === command || new RegExp(`\\| ${command} ID\\b`).test(head[1]);
    if (inCommand) picked.push(line);
  }
  if (picked.length === 0) return USAGE;
  return [`usage: perflow ${command} [options]`, ...picked, lines.at(-1)!].join('\n');
}

/** The line that says what a command needs as its first argument. */
export const missingId = (command: string, what: string) => `${command} needs ${what}: perflow ${command} ID`;
