// The postgres project's test files start their servers on PostgreSQL (see TEST_ENGINE in helpers/mailroom.ts).
process.env.MAILROOM_TEST_ENGINE = 'postgres';
