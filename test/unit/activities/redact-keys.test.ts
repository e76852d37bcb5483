import { ApplicationFailure } from '@temporalio/activity';
import { keyValues, redactKeys, REDACTED } from '../../../activities/llm/redact-keys';

const secrets: Record<string, string> = { OPENAI_API_KEY: 'sk-openai-1234567890', TEAM_KEY: 'sk-team-abcdefghij', SHORT: 'abc' };
const providers = { secret: (name: string) => secrets[name] };

describe('keys out of model call errors', () => {
  it('reads the model\'s api_key_env and the providers\' key variables, leaving out values too short to be keys', () => {
    expect(keyValues({ api_key_env: 'TEAM_KEY' }, providers)).toEqual(['sk-team-abcdefghij', 'sk-openai-1234567890']);
    expect(keyValues({ api_key_env: 'SHORT' }, providers)).toEqual(['sk-openai-1234567890']);
  });

  it('replaces a key a provider quoted back, in the failure and down its cause chain', () => {
    const cause = new Error('401 Incorrect API key provided: Bearer sk-team-abcdefghij');
    const failure = ApplicationFailure.create({ message: `model failed with HTTP 401: ${cause.message}`, nonRetryable: true, cause });
    const out = redactKeys(failure, keyValues({ api_key_env: 'TEAM_KEY' }, providers));
    expect(out).toBe(failure);
    expect(out.message).toBe(`model failed with HTTP 401: 401 Incorrect API key provided: Bearer ${REDACTED}`);
    expect(cause.message).not.toContain('sk-team');
    expect(`${out.stack}${cause.stack}`).not.toContain('sk-team-abcdefghij');
  });
});
