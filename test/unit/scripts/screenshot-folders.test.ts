import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pruneFolders, screenshotFolder } from '../../../scripts/screenshot-folders';

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'perflow-prune-test-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

/** A folder `<prefix>XXXXXX` last modified `ageS` seconds ago. */
function folder(prefix: string, ageS: number): string {
  const path = mkdtempSync(join(parent, prefix));
  writeFileSync(join(path, 'shot.png'), 'png');
  const at = Date.now() / 1000 - ageS;
  utimesSync(path, at, at);
  return basename(path);
}

const names = () => readdirSync(parent).sort();

it('keeps the newest folders of the prefix, the new one included, and removes the older ones', () => {
  folder('shots-', 400);
  folder('shots-', 300);
  const [newer, newest] = [folder('shots-', 200), folder('shots-', 100)];
  const made = screenshotFolder('shots-', { parent });
  expect(names()).toEqual([newer, newest, basename(made)].sort());
  // The next run keeps three again: this one's, the one before and the newest of the old.
  const next = screenshotFolder('shots-', { parent });
  expect(names()).toEqual([newest, basename(made), basename(next)].sort());
});

it('leaves alone what mkdtemp with the prefix did not make: other prefixes, longer names, files', () => {
  const others = [folder('other-', 500), folder('shots-kept-', 500)];
  mkdirSync(join(parent, 'shots-longer-name'));
  writeFileSync(join(parent, 'shots-abcdef'), 'a file, not a folder');
  pruneFolders(parent, 'shots-', 0);
  expect(names()).toEqual([...others, 'shots-abcdef', 'shots-longer-name'].sort());
});

it('removes every older folder when one is to be kept', () => {
  folder('shots-', 200);
  folder('shots-', 100);
  const made = screenshotFolder('shots-', { parent, keep: 1 });
  expect(names()).toEqual([basename(made)]);
});
