// The model of an image request that names none, as OpenAI picks it: dall-e-2, unless a parameter only the GPT
// image models take is there. The gateway routes, checks and bills that model, and writes it into the body it
// sends, so what the upstream makes is what was checked and billed.

/** Parameters of the GPT image models alone (wire-formats.md, 4.1 and 4.2). */
const GPT_IMAGE_ONLY = ['background', 'output_format', 'output_compression', 'moderation', 'input_fidelity', 'partial_images'] as const;

export function defaultImageModel(has: (field: string) => boolean): string {
  return GPT_IMAGE_ONLY.some(has) ? 'gpt-image-1' : 'dall-e-2';
}
