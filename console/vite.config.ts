// Built once at install time (`make install`) into the Python package, which serves it at /console.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/console/",
  build: {
    outDir: "../src/soundstage/console/dist",
    emptyOutDir: true,
    sourcemap: false,
    target: "es2022",
  },
});
