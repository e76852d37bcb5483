import { visibleText } from '../../../core/text';

describe('visibleText', () => {
  it('shows terminal controls as text: OSC title, CSI clear, BEL, C1 CSI, DEL, a lone CR, bidi overrides', () => {
    expect(visibleText('a\x1b]0;pwned\x07b\x1b[2Jc\x9b31md\x7fe\rf\u202eg\u2066h')).toBe('a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x9b31md\\x7fe\\x0df\\u202eg\\u2066h');
  });

  it('keeps newlines, tabs, CRLF line breaks and every printable character', () => {
    expect(visibleText('line 1\r\nline 2\n\tindented · é 漢字 🙂 → ←')).toBe('line 1\nline 2\n\tindented · é 漢字 🙂 → ←');
  });
});
