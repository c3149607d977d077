/** Helpers shared by the test files split from governance.test.ts. */

export type Json = Record<string, unknown> & { error?: string };

export const body = async (res: Response) => (await res.json()) as Json;
