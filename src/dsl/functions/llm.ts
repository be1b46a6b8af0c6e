/**
 * `llm_prompt(prompt, model?)`: the answer of an OpenAI chat model to the prompt, as nuclei gives it
 * (the first choice's message; gpt-4o-mini unless a model is named). As in nuclei, the helper works
 * only with `OPENAI_API_KEY` set, and sends the prompt, which a template may build from a target's
 * responses, to OpenAI's API, or to the OpenAI-compatible API `OPENAI_BASE_URL` names. Each prompt
 * sent is announced with its size and destination.
 */
import { argumentError } from '../errors.js';
import { type HelperFunction, ranged } from './helper.js';
import { announce, callService, outboundEnvironment, serviceUrl, warningOfFailure } from './outbound.js';

export const OPENAI_API = 'https://api.openai.com/v1';
const DEFAULT_MODEL = 'gpt-4o-mini';
const TIMEOUT_MS = 60_000;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

interface ChatAnswer {
  readonly choices?: readonly { readonly message?: { readonly content?: unknown } }[];
  readonly error?: { readonly message?: unknown };
}

function parsed(body: string): ChatAnswer | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as ChatAnswer) : undefined;
  } catch {
    return undefined;
  }
}

export function llmPrompt(
  prompt: string,
  model: string,
  environment: Readonly<Record<string, string | undefined>> = outboundEnvironment(),
): string {
  const key = environment.OPENAI_API_KEY?.trim();
  if (!key) {
    throw argumentError(
      'llm_prompt',
      'OPENAI_API_KEY is not set: keyhole sends prompts to an LLM service only with a key',
    );
  }
  const configured = environment.OPENAI_BASE_URL?.trim();
  const base = configured ? serviceUrl('llm_prompt', 'OPENAI_BASE_URL', configured).href : OPENAI_API;
  const url = `${base.replace(/\/+$/, '')}/chat/completions`;
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: prompt }] });
  announce(`llm_prompt() sends a prompt of ${Buffer.byteLength(prompt)} bytes to ${url} (model ${model})`);
  const answer = callService('llm_prompt', {
    url,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
    timeoutMs: TIMEOUT_MS,
    maxBytes: MAX_ANSWER_BYTES,
  });
  const chat = parsed(answer.body);
  if (answer.status !== 200) {
    const reason = typeof chat?.error?.message === 'string' ? `: ${chat.error.message}` : '';
    throw argumentError('llm_prompt', `${url} answered with status ${answer.status}${reason}`);
  }
  if (chat === undefined) throw argumentError('llm_prompt', `${url} answered with something other than JSON`);
  const content = chat.choices?.[0]?.message?.content;
  if (chat.choices?.length === 0 || chat.choices === undefined)
    throw argumentError('llm_prompt', 'the answer has no choices');
  if (typeof content !== 'string') throw argumentError('llm_prompt', 'the answer has no message text');
  return content;
}

export const llmFunctions: readonly HelperFunction[] = [
  ranged('llm_prompt', 1, 2, (args) => {
    const [prompt, model = DEFAULT_MODEL] = args;
    // nuclei's helper asserts strings: a number is not a prompt
    if (typeof prompt !== 'string') throw argumentError('llm_prompt', 'invalid prompt: it must be a string');
    if (typeof model !== 'string') throw argumentError('llm_prompt', 'invalid model: it must be a string');
    return warningOfFailure(() => llmPrompt(prompt, model));
  }),
];
