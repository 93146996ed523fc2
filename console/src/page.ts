// What every page component is given: the parameters of its route's path (`/jobs/:id`).
// Its own module, so that pages never import routes.ts (which imports them).
export type PageProps = { params: Record<string, string> };
