import { unifiedDiff } from '../../../client/diff';

describe('unifiedDiff', () => {
  it('shows the whole texts as one hunk: lines of a only with -, of b only with +, shared lines unmarked', () => {
    const a = 'You plan.\nStep one.\nStep two.\nAnswer briefly.';
    const b = 'You plan.\nStep 1.\nStep two.\nAnswer briefly.\nCite sources.';
    expect(unifiedDiff(a, b, 'run-a', 'run-b')).toBe(
      ['--- run-a', '+++ run-b', '@@ -1,4 +1,5 @@', ' You plan.', '-Step one.', '+Step 1.', ' Step two.', ' Answer briefly.', '+Cite sources.'].join('\n'),
    );
  });

  it('keeps a trailing newline a line of its own and marks no missing newline', () => {
    expect(unifiedDiff('x\n', 'y\n')).toBe(['--- a', '+++ b', '@@ -1,2 +1,2 @@', '-x', '+y', ' '].join('\n'));
  });

  it('is the headers alone for the same texts', () => {
    expect(unifiedDiff('same\ntext', 'same\ntext')).toBe('--- a\n+++ b');
  });
});
