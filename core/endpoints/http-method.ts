// The methods an endpoint of the registry may take (HEAD is served by the GET endpoint of a path).

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
