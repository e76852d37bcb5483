/**
 * No import circles: modules that import one another (around any loop, type-only imports
 * included) cannot be read, tested or moved apart. scripts/import-circles.mjs finds them.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '../../../scripts/import-circles.mjs');

describe('import circles', () => {
  it('there are none among the source modules', () => {
    const { stdout, status } = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(status).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(['0 import circle(s)']);
  });

  it('the finder sees a circle, through type-only imports and index modules too', () => {
    const { stdout } = spawnSync(process.execPath, ['--input-type=module', '-e', `
      import { importCircles } from ${JSON.stringify(SCRIPT)};
      const g = new Map([['/r/a.ts', ['/r/b/index.ts']], ['/r/b/index.ts', ['/r/c.ts']], ['/r/c.ts', ['/r/a.ts']], ['/r/d.ts', ['/r/a.ts']]]);
      console.log(JSON.stringify(importCircles(g)));
    `], { encoding: 'utf8' });
    const circles = JSON.parse(stdout) as string[][];
    expect(circles).toHaveLength(1);
    expect(circles[0].map((f) => f.replace(/^.*\/r\//, ''))).toEqual(['a.ts', 'b/index.ts', 'c.ts']);
  });
});
