// The owner's app's entry (served at /config by api/src/routes/config.rs).
import "./admin.css";
import { render } from "preact";
import { App } from "./app";

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
