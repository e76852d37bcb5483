/**
 * The workflow code a worker hands the SDK (workers/workflow-source.ts): a bundle file goes as its
 * path (the SDK then keeps its source map as it is), with the build ID its code would have.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workflowCode } from '../../../workers/workflow-source';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perflow-workflow-code-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('passes a bundle file by its path, named by the same build ID as its code', async () => {
  // Not ASCII: the build ID hashes the file's bytes as it hashes the code's UTF-8.
  const code = 'globalThis.greeting = "héllo, wörld ✓";\n';
  const codePath = join(dir, 'bundle.js');
  writeFileSync(codePath, code);
  const fromFile = await workflowCode({ workflowBundle: { codePath } });
  const fromCode = await workflowCode({ workflowBundle: { code } });
  expect(fromFile.workflowBundle).toEqual({ codePath });
  expect(fromCode.workflowBundle).toEqual({ code });
  expect(fromFile.buildId).toMatch(/^perflow\+[0-9a-f]{20}$/);
  expect(fromFile.buildId).toBe(fromCode.buildId);
});
