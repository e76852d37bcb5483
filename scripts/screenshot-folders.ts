/**
 * Folders for screenshots a person looks at after a UI test or `npm run ui-check`: in the temp
 * dir and kept after the run, but only the newest few of each prefix, so they do not pile up.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How many folders of one prefix are kept, the new one included. */
export const KEPT_SCREENSHOT_FOLDERS = 3;

/** mkdtemp's suffix: only the folders it made are ours to remove. */
const MKDTEMP_SUFFIX = /^[A-Za-z0-9]{6}$/;

/** A new folder `<parent>/<prefix>XXXXXX`, after removing the older ones of that prefix beyond the newest `keep - 1`. */
export function screenshotFolder(prefix: string, options: { keep?: number; parent?: string } = {}): string {
  const keep = options.keep ?? KEPT_SCREENSHOT_FOLDERS;
  const parent = options.parent ?? tmpdir();
  pruneFolders(parent, prefix, keep - 1);
  return mkdtempSync(join(parent, prefix));
}

/**
 * Removes the folders `<parent>/<prefix>XXXXXX` but the `keep` last modified (a folder being
 * written to by a run still going counts as new). One that cannot be removed (another user's) stays.
 */
export function pruneFolders(parent: string, prefix: string, keep: number): void {
  const folders: Array<{ path: string; modified: number }> = [];
  for (const entry of readdirSync(parent, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(prefix) || !MKDTEMP_SUFFIX.test(entry.name.slice(prefix.length))) continue;
    const path = join(parent, entry.name);
    try {
      folders.push({ path, modified: statSync(path).mtimeMs });
    } catch {
      // removed meanwhile by a run of its own
    }
  }
  folders.sort((a, b) => b.modified - a.modified);
  for (const { path } of folders.slice(Math.max(keep, 0))) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // not ours to remove
    }
  }
}
