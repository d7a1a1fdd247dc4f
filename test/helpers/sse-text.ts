// Splits an SSE body as the fakes and the gateway write it (LF line ends, a blank line between frames) into
// event names and data, for assertions on what a client received.

export interface TextFrame {
  readonly event: string | null;
  readonly data: string | null;
}

export function splitSse(text: string): TextFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      }
      return { event, data: data.length === 0 ? null : data.join('\n') };
    });
}
