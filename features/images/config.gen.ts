// Generated from features/images/config-schema.ts by `npm run gen`; do not edit. Change the schema and regenerate.

export interface ImagesConfig {
  channels?: Channel[];
}
export interface Channel {
  images?: ImageOptions;
}
/**
 * Limits of the image routes on this channel.
 */
export interface ImageOptions {
  /**
   * The most images one request may ask this channel for (`n` of /v1/images/generations and /v1/images/edits): one cap for every model, or a cap per model glob (first match wins, in file order; models no glob matches are not capped). A request above the cap is not sent to this channel; when no channel takes it, it is a 400 that names the cap.
   */
  max_n?:
    | number
    | {
        [k: string]: number | undefined;
      };
}
