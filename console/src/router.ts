// Hash routes (`/console/#/jobs/job_123`): the server serves one index.html, deep links work.
import { useEffect, useState } from "preact/hooks";

export function currentPath(): string {
  return location.hash.replace(/^#/, "") || "/";
}

export function navigate(path: string): void {
  location.hash = path;
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const changed = () => setPath(currentPath());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return path;
}

/** Match `/jobs/:id` against `/jobs/job_123` -> {id: "job_123"}, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("?")[0].split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}
