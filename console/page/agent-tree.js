// An agent tree under its root's run: each sub-agent's run (a link to its own view) indented by
// its depth, with its status, steps and cost — and what it waits for, answered right here.
import { html } from './html.js';
import { href } from './router.js';
import { cost, tone } from './format.js';
import { PendingDecisions } from './decisions.js';

export function AgentTree({ progress, onDone }) {
  const runs = progress.sub_agents ?? [];
  if (runs.length === 0) return null;
  return html`
    <section class="panel agent-tree" data-testid="agent-tree">
      <h3>Sub-agents</h3>
      <ul class="plain tree">
        ${runs.map(
          (r) => html`
            <li key=${r.workflow_id} class="tree-node" data-testid="tree-node" data-workflow-id=${r.workflow_id} style=${`margin-left: ${(r.agent_path.length - 2) * 1.5}rem`}>
              <div class="line">
                <span class=${`badge ${tone(r.status)}`} data-testid="tree-node-status">${r.status}</span>
                <a href=${href('runs', r.workflow_id)} class="agent">${r.agent_path[r.agent_path.length - 1]}</a>
                <span class="muted mono">${r.workflow_id}</span>
                ${r.steps_executed !== undefined && html`<span class="muted">${r.steps_executed} steps · ${cost(r.cost_usd)}</span>`}
              </div>
              ${(r.pending ?? []).length > 0 &&
              html`<div class="decisions nested" data-testid="tree-node-decisions">
                <${PendingDecisions} pending=${r.pending} workflowId=${r.workflow_id} onDone=${onDone} />
              </div>`}
            </li>`,
        )}
      </ul>
    </section>`;
}
