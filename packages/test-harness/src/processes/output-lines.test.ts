import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OutputLines } from './output-lines.js';

describe('OutputLines', () => {
  it('joins a line that arrives in two reads, and keeps both streams', async () => {
    const output = new OutputLines();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    output.follow(stdout);
    output.follow(stderr);
    stdout.write('{"msg":"wor');
    stderr.write('warning\n');
    stdout.write('ker ready"}\nlast without newline');
    stdout.end();
    await new Promise((resolve) => stdout.once('end', resolve));
    expect(output.lines).toEqual(['warning', '{"msg":"worker ready"}', 'last without newline']);
  });

  it('waits for a line that has not come yet', async () => {
    const output = new OutputLines();
    const stream = new PassThrough();
    output.follow(stream);
    const found = output.waitFor(/ready/, 1_000, 'test process');
    stream.write('starting\n');
    stream.write('ready on 3000\n');
    await expect(found).resolves.toBe('ready on 3000');
  });

  it('stops waiting once the output has ended without the line', async () => {
    const output = new OutputLines();
    const found = output.waitFor(/ready/, 10_000, 'test process');
    output.end();
    await expect(found).rejects.toThrow('test process exited without logging /ready/');
  });
});
