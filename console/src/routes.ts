// Every page of the console: its hash path, its title in the navigation, its component.
// One file per page under pages/; a page with sub-routes (a job's detail) lists them too.
import type { FunctionComponent } from "preact";
import type { PageProps } from "./page";
import { Overview } from "./pages/overview";
import { Keys } from "./pages/keys";
import { Playground } from "./pages/playground";
import { Jobs, JobDetail } from "./pages/jobs";
import { Webhooks } from "./pages/webhooks";
import { Studios, StudioDetail } from "./pages/studios";
import { Talent, CreatorDetail } from "./pages/talent";

export interface Route {
  path: string;
  component: FunctionComponent<PageProps>;
  /** Shown in the navigation when set. */
  title?: string;
}

export const routes: Route[] = [
  { path: "/", title: "Overview", component: Overview },
  { path: "/keys", title: "API keys", component: Keys },
  { path: "/playground", title: "Playground", component: Playground },
  { path: "/jobs", title: "Jobs", component: Jobs },
  { path: "/jobs/:id", component: JobDetail },
  { path: "/webhooks", title: "Webhooks", component: Webhooks },
  { path: "/studios", title: "Studios", component: Studios },
  { path: "/studios/:id", component: StudioDetail },
  { path: "/talent", title: "Talent", component: Talent },
  { path: "/talent/:id", component: CreatorDetail },
];
