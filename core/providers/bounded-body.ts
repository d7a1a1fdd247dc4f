// A small upstream answer read whole, but never more than a bound: a control plane's or a model list's JSON, which a
// broken or hostile upstream could make endless.

/** The body's bytes; throws `tooLarge()` once more than `max` bytes came (leaving the loop destroys the body). */
export async function readAtMost(body: AsyncIterable<unknown>, max: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > max) throw tooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
