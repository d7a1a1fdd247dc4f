// The shapes of /console/api's answers, by the names the pages use. Each is generated from its route's response
// schema (api-types.gen.ts, `npm run gen`, from schemas/console/), which test/e2e/console-schemas.test.ts holds the
// answers to: none is written here by hand. Money is a decimal string, times are ISO strings (UTC).

import type * as Api from './api-types.gen.js';

export type User = Api.ConsoleUser;
export type Limits = Api.ConsoleLimits;
export type Session = Api.ConsoleSession;
export type Group = Api.ConsoleSession['groups'][number];
export type Dashboard = Api.ConsoleDashboard;
export type UsageSums = Api.ConsoleDashboard['totals'];
export type SplitSeries = Api.ConsoleDashboard['split']['by_model'][number];
export type Key = Api.ConsoleKey;
export type KeyStatus = Api.ConsoleKey['status'];
export type KeyList = Api.ConsoleKeyList;
export type CreatedKey = Api.ConsoleKeyCreated;
export type UsagePage = Api.ConsoleUsagePage;
export type UsageRow = Api.ConsoleUsagePage['data'][number];
export type LedgerPage = Api.ConsoleLedgerPage;
export type LedgerEntry = Api.ConsoleLedgerEntry;
export type Account = Api.ConsoleAccount;
export type AccountList = Api.ConsoleAccountList;
export type Credited = Api.ConsoleCredited;
export type Debited = Api.ConsoleDebitMade;
export type Adjusted = Api.ConsoleAdjustmentMade;
export type AccountUser = Api.ConsoleUserMade;
export type AccountUserRow = Api.ConsoleAccountUser;
export type AccountUserList = Api.ConsoleAccountUserList;
export type OwnSessionList = Api.ConsoleSessionList;
export type OwnSession = Api.ConsoleSessionList['data'][number];
export type PasswordChanged = Api.ConsolePasswordChanged;
export type ChannelList = Api.ConsoleChannels;
export type Channel = Api.ConsoleChannels['data'][number];
export type InstanceList = Api.ConsoleInstances;
export type Instance = Api.ConsoleInstances['data'][number];
export type RunningConfig = Api.ConsoleConfig;
export type Reloaded = Api.ConsoleReloaded;
