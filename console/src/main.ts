// The console's entry: uPlot's stylesheet, then ours (which may override it), the theme chosen in this browser, and
// the app rendered into #app.

import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { App } from './app.js';
import { html } from './components/html.js';
import { followSystemTheme } from './components/theme.js';

// Before the first render: a page in the dark theme never shows light first.
followSystemTheme();
const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
