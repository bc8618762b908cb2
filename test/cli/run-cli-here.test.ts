/** test/helpers/run-cli.ts's runCliHere: what it collects is the text written, and a run's failure is the test's. */
import { expect, it } from 'vitest';
import { runCliHere, TextSink } from '../helpers/run-cli.js';

it('collects a character whose UTF-8 bytes are split between two writes whole', async () => {
  const sink = new TextSink();
  const bytes = Buffer.from('größe → 脳 🧠\n', 'utf8');
  for (let at = 0; at < bytes.length; at++) sink.stream.write(bytes.subarray(at, at + 1));
  sink.stream.write('then a string\n');
  await new Promise<void>((resolve) => sink.stream.end(resolve));
  expect(sink.text).toBe('größe → 脳 🧠\nthen a string\n');
});

it("a run's one-line error is collected with its exit code", async () => {
  const run = await runCliHere(['--bogus']);
  expect(run).toEqual({ code: 2, stdout: '', stderr: 'img-etl: unknown option --bogus (see img-etl --help)\n' });
});
