import { render } from "preact";
import { useState } from "preact/hooks";
import "./style.css";
import { currentEnvironment, signOut, storedKeys, switchEnvironment, type Environment } from "./api";
import { match, navigate, usePath } from "./router";
import { routes } from "./routes";
import { SignIn } from "./pages/signin";

function App() {
  const path = usePath();
  const [environment, setEnvironment] = useState<Environment | null>(currentEnvironment());
  if (!environment) return <SignIn onSignedIn={(env) => setEnvironment(env)} />;
  const keys = storedKeys();
  let page = null;
  for (const route of routes) {
    const params = match(route.path, path);
    if (params) {
      page = <route.component params={params} />;
      break;
    }
  }
  return (
    <div class="layout">
      <header class="topbar">
        <a class="brand" href="#/">
          Soundstage
        </a>
        <nav aria-label="Console">
          <ul>
            {routes
              .filter((r) => r.title)
              .map((r) => (
                <li key={r.path}>
                  <a href={`#${r.path}`} aria-current={match(r.path, path) || (r.path !== "/" && path.startsWith(r.path)) ? "page" : undefined}>
                    {r.title}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <div class="session">
          <label>
            Environment{" "}
            <select
              value={environment}
              onChange={(e) => {
                const env = (e.target as HTMLSelectElement).value as Environment | "add";
                if (env === "add") {
                  setEnvironment(null);
                  return;
                }
                switchEnvironment(env);
                setEnvironment(env);
              }}
            >
              {(["sandbox", "production"] as Environment[])
                .filter((env) => keys[env])
                .map((env) => (
                  <option key={env} value={env}>
                    {env}
                  </option>
                ))}
              <option value="add">Add a key…</option>
            </select>
          </label>
          <button
            type="button"
            onClick={() => {
              signOut();
              setEnvironment(null);
              navigate("/");
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" key={environment}>
        {page ?? (
          <>
            <h1>Not found</h1>
            <p>
              No console page at <code>{path}</code>. <a href="#/">Overview</a>
            </p>
          </>
        )}
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
