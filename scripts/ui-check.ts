/**
 * Looks at a run the way a person would: opens its page in the Temporal Web UI in headless
 * Chromium, waits for the given texts and saves a screenshot.
 *
 * Usage: npm run ui-check -- WORKFLOW_ID [TEXT...]   (PERFLOW_TEMPORAL_UI_URL, TEMPORAL_NAMESPACE)
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { screenshotFolder } from './screenshot-folders';

/** The Chromium to drive, installed by scripts/ensure-chromium.sh when missing. */
export function ensureChromium(): string {
  const script = resolve(__dirname, 'ensure-chromium.sh');
  try {
    return execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!;
  } catch (err) {
    throw new Error(`Chromium is not available and could not be installed (${script}): ${(err as Error).message.split('\n')[0]}`);
  }
}

export interface PageCheck {
  /** Texts found on the page. */
  found: string[];
  /** Texts of `options.absent` that were visible after all (should be none). */
  present: string[];
  screenshot: string;
}

/**
 * Opens `url` (and then the tab named `tab`, such as "User Metadata"), waits (bounded) until
 * every text is visible, then reports which `absent` texts are visible anyway, and saves a
 * screenshot outside the repo (the newest few kept: scripts/screenshot-folders.ts).
 * `localStorage` is set before the UI's scripts run (e.g. the UI's `endpoint`: a codec server
 * for this browser).
 */
export async function checkPage(
  url: string,
  texts: string[],
  options: { tab?: string; timeoutMs?: number; localStorage?: Record<string, string>; absent?: string[] } = {},
): Promise<PageCheck> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const browser = await chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ], // launch() already starts from a new, empty profile
  });
  const screenshot = join(screenshotFolder('perflow-ui-'), 'run.png');
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
    if (options.localStorage) {
      await page.addInitScript((items: Record<string, string>) => {
        // Runs in the page (no DOM types in this project).
        const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage;
        for (const [k, v] of Object.entries(items)) storage.setItem(k, v);
      }, options.localStorage);
    }
    await page.goto(url, { timeout: timeoutMs });
    const found: string[] = [];
    const present: string[] = [];
    try {
      if (options.tab) await page.getByText(options.tab, { exact: true }).first().click({ timeout: timeoutMs });
      for (const text of texts) {
        if (!(await visibleSomewhere(page, text, timeoutMs))) throw new Error(`"${text}" did not appear on ${url} within ${timeoutMs} ms`);
        found.push(text);
      }
      // The page has rendered what it shows; a text that is absent now stays absent.
      for (const text of options.absent ?? []) if (await visibleSomewhere(page, text, 5_000)) present.push(text);
    } finally {
      await page.screenshot({ path: screenshot, fullPage: true });
    }
    return { found, present, screenshot };
  } finally {
    await browser.close();
  }
}

/** The UI renders Markdown summaries in sandboxed iframes: look in every frame, until the deadline. */
async function visibleSomewhere(page: Page, text: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const match = frame.getByText(text, { exact: false }).filter({ visible: true });
      if ((await match.count().catch(() => 0)) > 0) return true;
    }
    await page.waitForTimeout(250);
  }
  return false;
}

if (require.main === module) {
  const [workflowId, ...texts] = process.argv.slice(2);
  const ui = process.env.PERFLOW_TEMPORAL_UI_URL ?? 'http://localhost:8233';
  const ns = process.env.TEMPORAL_NAMESPACE ?? 'default';
  if (!workflowId) {
    console.error('usage: npm run ui-check -- WORKFLOW_ID [TEXT...]');
    process.exit(2);
  }
  checkPage(`${ui}/namespaces/${encodeURIComponent(ns)}/workflows/${encodeURIComponent(workflowId)}`, texts.length > 0 ? texts : [workflowId], { tab: 'User Metadata' })
    .then((r) => console.log(`found ${r.found.map((t) => JSON.stringify(t)).join(', ')}; screenshot ${r.screenshot}`))
    .catch((err: Error) => {
      console.error(`perflow ui-check: ${err.message.split('\n')[0]}`);
      process.exit(1);
    });
}
