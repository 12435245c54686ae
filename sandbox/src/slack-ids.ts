/** Ids the fake workspace uses. */
export const TEST_TEAM_ID = 'T0TEST001';
export const TEST_APP_ID = 'A0TEST001';
export const TEST_BOT_USER_ID = 'U0BOT0001';
export const TEST_BOT_ID = 'B0BOT0001';
export const TEST_CHANNEL_ID = 'C0CHANNEL1';
export const TEST_USER_ID = 'U0ALICE01';
