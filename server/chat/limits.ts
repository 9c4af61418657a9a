/** Limits the chat page checks before sending and the server enforces (isomorphic: no server imports). */
export const MAX_MESSAGE_CHARS = 32_000;
