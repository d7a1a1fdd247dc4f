// Generated from schemas/plugins/video.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.

/**
 * The with: block of the video plugin (/v1/videos, /v1/video/generations): video generation tasks. Its settings are gateway.yaml's `video` block; it takes no options of its own.
 */
export interface VideoOptions {}
