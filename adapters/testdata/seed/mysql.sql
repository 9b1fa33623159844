DROP TABLE IF EXISTS `raw`.`<aside>`;
CREATE TABLE `raw`.`<aside>` (`id` BIGINT, `amount` DOUBLE, `ok` BOOLEAN, `d` DATE, `ts` DATETIME(6), `zip` TEXT, `price` DECIMAL(18,2));
INSERT INTO `raw`.`<aside>` (`id`, `amount`, `ok`, `d`, `ts`, `zip`, `price`) VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?);
-- bound: [1 2.5 true 2026-07-01 00:00:00 +0000 UTC 2026-07-01 10:00:00.5 +0000 UTC 00123 12.30 2 <nil> false <nil> <nil> it's <nil>]
CREATE TABLE IF NOT EXISTS `raw`.`zips` LIKE `raw`.`<aside>`;
DROP TABLE IF EXISTS `raw`.`zips__idemc_old`;
RENAME TABLE `raw`.`zips` TO `raw`.`zips__idemc_old`, `raw`.`<aside>` TO `raw`.`zips`;
DROP TABLE IF EXISTS `raw`.`zips__idemc_old`;
