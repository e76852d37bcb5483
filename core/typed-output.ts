/**
 * A run's typed answer (`output_schema`) as workflow code may know it: the retry bounds, the
 * schema's name for the providers, and the prompt of a typed-output call (the run's question and
 * answer, the schema, and what the last reply got wrong). Pure: the validator is in
 * output-schema.ts, which only clients and activities load.
 */

/** A typed answer as asked of the model: the schema's name (letters, digits, `_`, `-`) and the schema. */
export interface OutputFormat {
  name: string;
  schema: Record<string, unknown>;
}

/** How many times a reply that does not conform is asked again, unless `output_retries` says. */
export const DEFAULT_OUTPUT_RETRIES = 2;
/** The most `output_retries` may be. */
export const MAX_OUTPUT_RETRIES = 10;

/** The schema's name as providers take it (letters, digits, `_`, `-`; at most 64): its `title`, else the agent's name. */
export function outputName(schema: Record<string, unknown>, agent: string): string {
  const title = typeof schema.title === 'string' ? schema.title : agent;
  return title.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) || 'output';
}

export const TYPED_OUTPUT_SYSTEM_PROMPT =
  'You turn an agent\'s answer into one JSON value that conforms to the given JSON Schema. Use only what the answer says; where the schema asks for something the answer does not say, use null if the schema allows it, else the closest value the answer supports. Reply with the JSON value alone: no prose, no code fence.';

/** The user prompt of attempt `previous ? n+1 : 1`. */
export function typedOutputPrompt(o: { question: string; answer: string; output: OutputFormat; previous?: { reply: string; problems: string[] } }): string {
  const parts = [`Question:\n${o.question}`, `Answer:\n${o.answer}`, `JSON Schema "${o.output.name}":\n${JSON.stringify(o.output.schema)}`];
  if (o.previous) {
    parts.push(`Your previous reply did not conform:\n${o.previous.problems.map((p) => `- ${p}`).join('\n')}\nPrevious reply:\n${o.previous.reply}`);
  }
  parts.push('Reply with the JSON value alone.');
  return parts.join('\n\n');
}
