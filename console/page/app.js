// The console page: runs on the left (start a run, pick two to compare), the selected run, a
// comparison or a memory on the right.
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

function Main({ route }) {
  const [name, ...args] = [route.name, ...route.args];
  if (name === 'runs' && args[0]) return html`<${RunView} key=${args[0]} id=${args[0]} />`;
  if (name === 'diff' && args.length === 2) return html`<${DiffView} key=${args.join('|')} a=${args[0]} b=${args[1]} />`;
  if (name === 'memory' && args[0]) return html`<${MemoryView} key=${args[0]} id=${args[0]} />`;
  return html`<section class="panel welcome"><h2>Pick a run on the left, or start one.</h2><p class="muted">Tick two runs to compare them side by side.</p></section>`;
}

function App() {
  const route = useRoute();
  const [info, setInfo] = useState(undefined);
  const [error, setError] = useState('');
  useEffect(() => {
    api('/info').then(setInfo, (err) => setError(err.status === 401 ? `${err.message} (open the console with /?token=…)` : err.message));
  }, []);
  return html`
    <header class="top">
      <a href="#/" class="brand">perflow console</a>
      ${info && html`<span class="muted">namespace <b>${info.namespace}</b></span>`}
      ${info?.temporal_ui_url && html`<a href=${info.temporal_ui_url} target="_blank" rel="noopener">Temporal UI ↗</a>`}
      ${error && html`<span class="error" data-testid="info-error">${error}</span>`}
    </header>
    <div class="layout">
      <aside class="side">
        <${StartForm} />
        <${RunsList} selected=${route.name === 'runs' ? route.args[0] : undefined} />
      </aside>
      <main class="main"><${Main} route=${route} /></main>
    </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
