/** A tool that blocks until the test opens its gate, so a run can be observed while a step runs. */
import { z } from 'zod';
import type { Tool } from '../../activities/tools/tool';

export function gateTool(type = 'WaitTool') {
  let open: () => void = () => undefined;
  let gate = Promise.resolve();
  const tool: Tool<{ label: string }> = {
    type,
    description: 'Waits until released by the test.',
    input: z.object({ label: z.string() }),
    async run({ label }) {
      await gate;
      return `released ${label}`;
    },
  };
  return {
    tool: tool as Tool<never>,
    /** Calls from now on wait for {@link release}. */
    close() {
      gate = new Promise((resolve) => (open = resolve));
    },
    /** Lets every waiting call end. */
    release: () => open(),
  };
}
