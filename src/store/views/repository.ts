// The saved views repository: each user's named lists (path and query).
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import * as views from './views.ts';

export const viewsRepository = (db: Driver) =>
  bindDriver(db, {
    list: views.listViews,
    save: views.saveView,
    delete: views.deleteView,
  });

export type ViewsRepository = ReturnType<typeof viewsRepository>;
