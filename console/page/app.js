// The console page: runs on the left (start a run, pick two to compare), the selected run, a
// comparison or a memory on the right; under Evals, the evals on the left and an eval or a
// comparison of two on the right; under Schedules, the schedules and one of them.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { useRoute } from './router.js';
import { RunsList } from './runs-list.js';
import { StartForm } from './start-form.js';
import { RunView } from './run-view.js';
import { DiffView } from './diff-view.js';
import { MemoryView } from './memory-view.js';
import { EvalsList } from './evals-list.js';
import { EvalView } from './eval-view.js';
import { EvalCompare } from './eval-compare.js';
import { SchedulesList, ScheduleView } from './schedules.js';
import { ScoresView } from './scores-view.js';

function Main({ route }) {
  const [name, ...args] = [route.name, ...route.args];
  if (name === 'runs' && args[0]) return html`<${RunView} key=${args[0]} id=${args[0]} />`;
  if (name === 'diff' && args.length === 2) return html`<${DiffView} key=${args.join('|')} a=${args[0]} b=${args[1]} />`;
  if (name === 'evals' && args[0] === 'compare' && args.length === 3) return html`<${EvalCompare} key=${args.join('|')} a=${args[1]} b=${args[2]} />`;
  if (name === 'evals' && args[0]) return html`<${EvalView} key=${args[0]} id=${args[0]} />`;
  if (name === 'evals') return html`<section class="panel welcome"><h2>Pick an eval on the left.</h2><p class="muted">Tick two evals to compare them case by case.</p></section>`;
  if (name === 'schedules' && args[0]) return html`<${ScheduleView} key=${args[0]} id=${args[0]} />`;
  if (name === 'schedules') return html`<section class="panel welcome"><h2>Pick a schedule on the left.</h2><p class="muted">Its next runs, its recent runs, and pause, run now or delete.</p></section>`;
  if (name === 'memory' && args[0]) return html`<${MemoryView} key=${args[0]} id=${args[0]} />`;
  if (name === 'scores') return html`<${ScoresView} key=${args[0] ?? ''} agent=${args[0]} />`;
  return html`<section class="panel welcome"><h2>Pick a run on the left, or start one.</h2><p class="muted">Tick two runs to compare them side by side.</p></section>`;
}

function App() {
  const route = useRoute();
  const evals = route.name === 'evals';
  const schedules = route.name === 'schedules';
  const [info, setInfo] = useState(undefined);
  const [error, setError] = useState('');
  useEffect(() => {
    api('/info').then(setInfo, (err) => setError(err.status === 401 ? `${err.message} (open the console with /?token=…)` : err.message));
  }, []);
  return html`
    <header class="top">
      <a href="#/" class="brand">perflow console</a>
      <nav class="tabs">
        <a href="#/" class=${evals || schedules ? '' : 'active'} data-testid="nav-runs">Runs</a>
        <a href="#/evals" class=${evals ? 'active' : ''} data-testid="nav-evals">Evals</a>
        <a href="#/schedules" class=${schedules ? 'active' : ''} data-testid="nav-schedules">Schedules</a>
      </nav>
      ${info && html`<span class="muted">namespace <b>${info.namespace}</b></span>`}
      ${info?.temporal_ui_url && html`<a href=${info.temporal_ui_url} target="_blank" rel="noopener">Temporal UI ↗</a>`}
      ${error && html`<span class="error" data-testid="info-error">${error}</span>`}
    </header>
    <div class="layout">
      <aside class="side">
        ${evals
          ? html`<${EvalsList} selected=${route.args[0]} />`
          : schedules
          ? html`<${SchedulesList} selected=${route.args[0]} />`
          : html`<${StartForm} />
              <${RunsList} selected=${route.name === 'runs' ? route.args[0] : undefined} />`}
      </aside>
      <main class="main"><${Main} route=${route} /></main>
    </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
