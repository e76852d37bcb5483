/** The offline examples of the other agent types run as they are and give the answers their descriptions promise. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHarness, runInput, runAgent } from '../../support/harness';

jest.setTimeout(90_000);

const harnessOf = useHarness();

const example = (file: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'examples', file), 'utf8')) as unknown;

it.each([
  ['todo-list.scripted.json', 'Plan a 3-night trip budget', '445', 3],
  ['plan-and-execute.scripted.json', 'What does a 200 item cost with the discount?', 'The discounted price is 170.', 3],
])('%s runs offline', async (file, question, response, steps) => {
  const out = await runAgent(harnessOf(), runInput(example(file), question), 'example');
  expect(out.response).toBe(response);
  expect(out.steps_executed).toBe(steps);
});
