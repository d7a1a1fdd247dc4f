// A Lua script run by its SHA (EVALSHA: the script's text is sent once per connection's server, not with every call),
// loaded on first use and sent whole again (EVAL, which caches it anew) when the server answers NOSCRIPT: a restarted
// or flushed Redis. The SHAs are the caller's (one map per limiter or sink): nothing kept at module level.

/** The commands a script runner needs of a Redis client (node-redis's, or a test's). */
export interface RedisScripting {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  scriptLoad(script: string): Promise<string>;
}

/** Runs `script` through EVALSHA; `shas` keeps each script's SHA once loaded. */
export async function runScript(redis: RedisScripting, shas: Map<string, string>, script: string, keys: string[], args: string[]): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = await redis.scriptLoad(script);
    shas.set(script, sha);
  }
  try {
    return await redis.evalSha(sha, { keys, arguments: args });
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(script, { keys, arguments: args });
  }
}
