#!/usr/bin/env bash
# Makes real web apps from Debian's packages ready for keyhole's login tests: WordPress and
# phpMyAdmin, each with a database on the local MariaDB and a user to log in as. The tests serve
# them with PHP's built-in server on 127.0.0.1 (nothing here listens on a port, and the packages'
# services are kept from starting). Safe to run again: it installs what is missing and leaves the
# rest, so a second run takes about a second.
#
# Prints KEY=VALUE lines the tests read. Exits 3 with the reason on stderr when this machine cannot
# run them (not root, no apt-get); any other failure exits 1.
set -euo pipefail

PACKAGES=(wordpress phpmyadmin php-cli php-mysql)
WP_DB=keyhole_wp
WP_DB_USER=keyhole_wp
WP_DB_PASSWORD=keyhole-wp-db-Pw1
WP_ADMIN=keyhole-admin
WP_PASSWORD='Wp-Adm1n-pa55!'
PMA_USER=keyhole_pma
PMA_PASSWORD='Pma-pa55-w0rd'
WP_CONFIG=/etc/wordpress/config-keyhole-test.php
# PHP's built-in server reads this before each script: it picks the configuration above.
WP_PREPEND=/etc/wordpress/keyhole-test-prepend.php

cannot() {
  echo "$1" >&2
  exit 3
}

[ "$(id -u)" = 0 ] || cannot "not root: the real-app tests install Debian packages (wordpress, phpmyadmin) with apt-get as root"
command -v apt-get >/dev/null || cannot "apt-get is not available: the real-app tests install Debian packages (wordpress, phpmyadmin)"

missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]} from Debian's packages" >&2
  # The packages would start Apache on every interface: keep every service from starting.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  printf '%s\n' 'phpmyadmin phpmyadmin/dbconfig-install boolean false' \
    'phpmyadmin phpmyadmin/reconfigure-webserver multiselect' | debconf-set-selections
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
  install || { apt-get update -q >&2 && install; }
fi

sql() { mysql --protocol=socket -uroot "$@"; }
if ! sql -e 'SELECT 1' >/dev/null 2>&1; then
  echo "MariaDB does not answer as root on its socket; start it (start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd)" >&2
  exit 1
fi
sql <<SQL
CREATE DATABASE IF NOT EXISTS $WP_DB;
CREATE USER IF NOT EXISTS '$WP_DB_USER'@'localhost' IDENTIFIED BY '$WP_DB_PASSWORD';
GRANT ALL ON $WP_DB.* TO '$WP_DB_USER'@'localhost';
CREATE USER IF NOT EXISTS '$PMA_USER'@'localhost' IDENTIFIED BY '$PMA_PASSWORD';
GRANT SELECT ON $WP_DB.* TO '$PMA_USER'@'localhost';
SQL

# WordPress answers at whatever 127.0.0.1 port a test serves it on.
cat >"$WP_CONFIG" <<PHP
<?php
define('DB_NAME', '$WP_DB');
define('DB_USER', '$WP_DB_USER');
define('DB_PASSWORD', '$WP_DB_PASSWORD');
define('DB_HOST', 'localhost');
define('WP_HOME', 'http://' . \$_SERVER['HTTP_HOST']);
define('WP_SITEURL', 'http://' . \$_SERVER['HTTP_HOST']);
define('AUTH_KEY', 'keyhole-test-auth-key');
define('SECURE_AUTH_KEY', 'keyhole-test-secure-auth-key');
define('LOGGED_IN_KEY', 'keyhole-test-logged-in-key');
define('NONCE_KEY', 'keyhole-test-nonce-key');
define('AUTH_SALT', 'keyhole-test-auth-salt');
define('SECURE_AUTH_SALT', 'keyhole-test-secure-auth-salt');
define('LOGGED_IN_SALT', 'keyhole-test-logged-in-salt');
define('NONCE_SALT', 'keyhole-test-nonce-salt');
PHP

printf '%s\n' '<?php' "\$_SERVER['WORDPRESS_CONFIG'] = 'keyhole-test';" >"$WP_PREPEND"

HTTP_HOST=127.0.0.1 php -r '
  $_SERVER["WORDPRESS_CONFIG"] = "keyhole-test";
  define("WP_INSTALLING", true);
  require "/usr/share/wordpress/wp-load.php";
  require_once ABSPATH . "wp-admin/includes/upgrade.php";
  if (!is_blog_installed()) {
    wp_install("keyhole test", $argv[1], "admin@keyhole.test", false, "", wp_slash($argv[2]));
    fwrite(STDERR, "WordPress installed\n");
  }
' "$WP_ADMIN" "$WP_PASSWORD" >&2

mkdir -p /var/lib/phpmyadmin/tmp

cat <<OUT
WORDPRESS_ROOT=/usr/share/wordpress
WORDPRESS_PREPEND=$WP_PREPEND
WORDPRESS_USER=$WP_ADMIN
WORDPRESS_PASSWORD=$WP_PASSWORD
PHPMYADMIN_ROOT=/usr/share/phpmyadmin
PHPMYADMIN_USER=$PMA_USER
PHPMYADMIN_PASSWORD=$PMA_PASSWORD
OUT
