/** The largest request body the /api accepts (the Node adapter reads one byte more, so 413 can be told). */
export const MAX_BODY_BYTES = 1_000_000;
