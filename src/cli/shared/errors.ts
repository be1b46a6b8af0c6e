/** What an error says, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why an operation failed, for a message: the first of several causes (a connection tried on
 * every address of a host), and the error code when the message is empty.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  const message = messageOf(error);
  return message === '' ? String((error as { code?: unknown }).code ?? 'unknown error') : message;
}
