/**
 * The formats a library run is given (runPipeline's `formats` or its pipeline's): anything but a non-empty list of
 * img-etl's formats is refused in one line before anything is made, as the command refuses such a --to.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePipeline, runPipeline, type Format } from '../../src/index.js';
import { removeDir, tempDir } from '../helpers/readers.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await removeDir(dir);
});

/** The message a run refuses `formats` with (nothing listens at the base URL: nothing is fetched). */
async function refusal(formats: unknown, where: 'pipeline' | 'options'): Promise<string> {
  const given = formats as readonly Format[];
  const pipeline = definePipeline({ name: 'f', description: 'f', ...(where === 'pipeline' ? { formats: given } : {}) });
  const outDir = join(dir, 'out');
  const options = { baseUrl: 'http://127.0.0.1:9', outDir, ...(where === 'options' ? { formats: given } : {}) };
  const message = await runPipeline(pipeline, options).then(
    () => 'the run succeeded',
    (e: unknown) => (e as Error).message,
  );
  expect(existsSync(outDir)).toBe(false);
  return message;
}

describe("a library run's formats", () => {
  it('a format img-etl does not write, a text for a list, or none at all, is refused in one line', async () => {
    const expected = (got: string) => `run: formats must be a non-empty list of parquet, arrow, csv; got ${got}`;
    expect(await refusal(['parquet', 'json'], 'pipeline')).toBe(expected('["parquet","json"]'));
    expect(await refusal('csv', 'pipeline')).toBe(expected('"csv"'));
    expect(await refusal([], 'options')).toBe(expected('[]'));
  });
});
