import { afterEach, describe, expect, it, vi } from 'vitest';
import { evaluate, evaluationFailure } from '../testing/evaluate.js';
import { type StandInAnswer, StandIns } from '../testing/http-stand-in.js';
import { unsupportedNucleiFunction } from './index.js';
import { llmPrompt, OPENAI_API } from './llm.js';
import { registerOutbound } from './outbound.js';

const standIns = new StandIns();
const openAi = (answer: StandInAnswer) => standIns.start({ '/v1/chat/completions': answer });

const chat = (content: unknown) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content } }],
  });

afterEach(async () => {
  vi.unstubAllEnvs();
  await standIns.closeAll();
});

describe('llm_prompt(prompt, model?)', () => {
  it('sends the prompt to the chat completions API with the key, says so, and gives the first answer', async () => {
    const service = await openAi({
      status: 200,
      body: chat('yes, it is vulnerable'),
      contentType: 'application/json',
    });
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    vi.stubEnv('OPENAI_BASE_URL', `${service.origin}/v1/`);
    const notices: string[] = [];
    const stop = registerOutbound({
      environment: process.env,
      announce: (notice) => notices.push(notice),
      warn: (message) => notices.push(`warning: ${message}`),
    });
    try {
      expect(evaluate('llm_prompt("is " + x + " vulnerable?")', { x: 'é' })).toBe('yes, it is vulnerable');
    } finally {
      stop();
    }
    const [request] = await service.requests();
    expect(request?.method).toBe('POST');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'is é vulnerable?' }],
    });
    expect(notices).toEqual([
      `llm_prompt() sends a prompt of 17 bytes to ${service.origin}/v1/chat/completions (model gpt-4o-mini)`,
    ]);
  });

  it('names the model it is given', async () => {
    const service = await openAi({ status: 200, body: chat('ok') });
    const environment = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${service.origin}/v1` };
    expect(llmPrompt('hi', 'gpt-4.1', environment)).toBe('ok');
    expect(JSON.parse((await service.requests())[0]?.body ?? '').model).toBe('gpt-4.1');
  });

  it('sends nothing without OPENAI_API_KEY, and says so', async () => {
    const service = await openAi({ status: 200, body: chat('ok') });
    expect(
      evaluationFailure(() => llmPrompt('hi', 'gpt-4o-mini', { OPENAI_BASE_URL: `${service.origin}/v1` })),
    ).toBe('llm_prompt: OPENAI_API_KEY is not set: keyhole sends prompts to an LLM service only with a key');
    expect(await service.requests()).toEqual([]);
  });

  it("fails with the API's own reason, or when the answer has no text", async () => {
    const refused = await openAi({
      status: 401,
      body: JSON.stringify({
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
      }),
    });
    const key = { OPENAI_API_KEY: 'sk-wrong' };
    expect(
      evaluationFailure(() =>
        llmPrompt('hi', 'gpt-4o-mini', { ...key, OPENAI_BASE_URL: `${refused.origin}/v1` }),
      ),
    ).toBe(
      `llm_prompt: ${refused.origin}/v1/chat/completions answered with status 401: Incorrect API key provided`,
    );
    const empty = await openAi({ status: 200, body: JSON.stringify({ choices: [] }) });
    expect(
      evaluationFailure(() =>
        llmPrompt('hi', 'gpt-4o-mini', { ...key, OPENAI_BASE_URL: `${empty.origin}/v1` }),
      ),
    ).toBe('llm_prompt: the answer has no choices');
    const notJson = await openAi({ status: 200, body: '<html>' });
    expect(
      evaluationFailure(() =>
        llmPrompt('hi', 'gpt-4o-mini', { ...key, OPENAI_BASE_URL: `${notJson.origin}/v1` }),
      ),
    ).toMatch(/answered with something other than JSON$/);
  });

  it('refuses a prompt or model that is not text, as nuclei does', () => {
    expect(evaluationFailure(() => evaluate('llm_prompt(42)'))).toBe(
      'llm_prompt: invalid prompt: it must be a string',
    );
    expect(evaluationFailure(() => evaluate('llm_prompt("hi", 4)'))).toBe(
      'llm_prompt: invalid model: it must be a string',
    );
  });

  it("calls OpenAI's API by default, and is no longer refused as unsupported", () => {
    expect(OPENAI_API).toBe('https://api.openai.com/v1');
    expect(unsupportedNucleiFunction('llm_prompt')).toBeUndefined();
  });
});
