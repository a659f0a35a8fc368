// The users repository: accounts, browser sessions and API tokens (hashes only).
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import * as users from './users.ts';

export const usersRepository = (db: Driver) =>
  bindDriver(db, {
    count: users.userCount,
    create: users.createUser,
    find: users.findUser,
    getById: users.getUserById,
    createSession: users.createSession,
    findSession: users.findSession,
    deleteSession: users.deleteSession,
    createToken: users.createApiToken,
    findToken: users.findApiToken,
    touchToken: users.touchApiToken,
    listTokens: users.listApiTokens,
    deleteToken: users.deleteApiToken,
  });

export type UsersRepository = ReturnType<typeof usersRepository>;
