// The page registry: the nav and the router read this list, in this order. Core's pages are files in pages/, one
// line each here; a feature's page is its features/<name>/console/page.ts, found when the console is built
// (scripts/build-console.ts) and shown after the user pages.

import FEATURE_PAGES from 'virtual:feature-pages';
import type { PageDef } from '../page-def.js';
import { AccountsPage } from './accounts.js';
import { ChannelsPage } from './channels.js';
import { ConfigPage } from './config.js';
import { DashboardPage } from './dashboard.js';
import { InstancesPage } from './instances.js';
import { LedgerPage } from './ledger.js';
import { PasswordPage } from './password.js';
import { SettingsPage } from './settings.js';
import { SignInPage } from './sign-in.js';
import { TokensPage } from './tokens.js';
import { UsagePage } from './usage.js';

export const PAGES: readonly PageDef[] = [
  { path: '/sign-in', title: 'Sign in', who: 'any', view: SignInPage },
  { path: '/password/:token', title: 'Set a password', who: 'any', view: PasswordPage },
  { path: '/dashboard', title: 'Dashboard', who: 'user', view: DashboardPage },
  { path: '/tokens', title: 'Tokens', who: 'user', view: TokensPage },
  { path: '/usage', title: 'Usage', who: 'user', view: UsagePage },
  { path: '/ledger', title: 'Ledger', who: 'user', view: LedgerPage },
  ...FEATURE_PAGES,
  { path: '/accounts', title: 'Accounts', who: 'operator', view: AccountsPage },
  { path: '/channels', title: 'Channels', who: 'operator', view: ChannelsPage },
  { path: '/instances', title: 'Instances', who: 'operator', view: InstancesPage },
  { path: '/config', title: 'Config', who: 'operator', view: ConfigPage },
  // The user's own password and sessions: reached from their name in the header.
  { path: '/settings', title: 'Settings', who: 'user', view: SettingsPage, nav: false },
];
