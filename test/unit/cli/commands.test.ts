import { COMMAND_NAMES, commandNamed, isCommand } from '../../../cli/commands';
import { USAGE } from '../../../cli/usage';

/** The commands `perflow --help` names (once each): each usage line's first word, and `resume` of `pause ID | resume ID`. */
const documented = [...new Set([...USAGE.matchAll(/^ {2}([a-z][a-z0-9-]*)\b(?:.*\| ([a-z][a-z-]*) ID)?/gm)].flatMap((m) => (m[2] ? [m[1], m[2]] : [m[1]])))];

describe('the table of commands', () => {
  it('has a handler for every command the usage names, and no other command', async () => {
    expect(new Set(documented).size).toBe(30); // budget set and budget show are one command, as are eval and schedule and their subcommands
    expect([...COMMAND_NAMES].sort()).toEqual([...documented].sort());
    for (const name of documented) expect([name, typeof (await commandNamed(name))]).toEqual([name, 'function']);
  });

  it('knows no command by an inherited property name', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(isCommand(name)).toBe(false);
      expect(await commandNamed(name)).toBeUndefined();
    }
  });
});
