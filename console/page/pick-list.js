// A list of rows of which two can be ticked and compared (the runs, the evals): the compare bar,
// the loading, error and empty states, and each row's checkbox beside its link.
import { useState } from 'preact/hooks';
import { html } from './html.js';

/**
 * `noun` names the rows in the text and in the test IDs (`run-row`, `run-pick`, `runs-error`);
 * `idOf(item)` is a row's ID, `attrs(item)` its data attributes, `link(item)` its content.
 */
export function PickList({ noun, items, error, empty, selected, idOf, attrs, link, compareTestId, onCompare }) {
  const [picked, setPicked] = useState([]);
  const toggle = (id) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]));
  return html`
    <div class="compare-bar">
      <span>${picked.length === 2 ? `Two ${noun}s picked` : `Tick two ${noun}s to compare them`}</span>
      <button data-testid=${compareTestId} disabled=${picked.length !== 2} onClick=${() => onCompare(picked[0], picked[1])}>Compare</button>
    </div>
    ${error && html`<p class="error" data-testid=${`${noun}s-error`}>${error}</p>`}
    ${items === undefined && !error && html`<p class="muted">Loading…</p>`}
    ${items && items.length === 0 && html`<p class="muted" data-testid=${`${noun}s-empty`}>${empty}</p>`}
    <ul class="run-rows">
      ${(items ?? []).map((item) => {
        const id = idOf(item);
        return html`
          <li key=${id} class=${`run-row ${id === selected ? 'selected' : ''}`} data-testid=${`${noun}-row`} ...${attrs(item)}>
            <input type="checkbox" title="compare" data-testid=${`${noun}-pick`} checked=${picked.includes(id)} onChange=${() => toggle(id)} />
            ${link(item)}
          </li>`;
      })}
    </ul>`;
}
