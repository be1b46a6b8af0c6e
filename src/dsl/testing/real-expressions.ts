/**
 * Expressions from public nuclei templates (projectdiscovery/nuclei-templates, and nuclei's own
 * integration test of the helper functions), as YAML hands them to the engine: the text after YAML
 * unquoting. Every one must compile; the test also evaluates many against realistic responses.
 */

export interface RealDsl {
  /** Where the expression comes from. */
  readonly from: string;
  readonly dsl: string;
}

export interface RealTemplateText {
  readonly from: string;
  readonly text: string;
}

export const REAL_DSL: readonly RealDsl[] = [
  {
    from: 'http/exposures/configs/composer-config.yaml',
    dsl: "contains(body, 'packages') && contains(tolower(header), 'application/octet-stream') && status_code == 200",
  },
  {
    from: 'http/exposures/configs/composer-config.yaml',
    dsl: "contains(body, 'require') && contains(tolower(header), 'application/json') && status_code == 200",
  },
  { from: 'http/technologies/apache/tomcat-detect.yaml', dsl: 'contains(tolower(header), "tomcat")' },
  { from: 'http/technologies/apache/tomcat-detect.yaml', dsl: 'contains(tolower(body), "apache tomcat")' },
  { from: 'http/technologies/apache/tomcat-detect.yaml', dsl: 'contains(tolower(body), "/manager/html")' },
  { from: 'http/technologies/apache/tomcat-detect.yaml', dsl: 'contains(tolower(body), "/manager/status")' },
  {
    from: 'http/technologies/aem-detect.yaml',
    dsl: 'status_code==200 && ("-144483185" == mmh3(base64_py(body)))',
  },
  {
    from: 'http/technologies/wordpress/plugins/contact-form-7.yaml',
    dsl: 'compare_versions(internal_detected_version, concat("< ", last_version))',
  },
  { from: 'http/cves/2024/CVE-2024-1071.yaml', dsl: 'duration_2>=5' },
  { from: 'http/cves/2024/CVE-2024-1071.yaml', dsl: 'status_code_2 == 200' },
  { from: 'http/cves/2024/CVE-2024-1071.yaml', dsl: 'contains_all(body_2, "current_page", "total_pages")' },
  {
    from: 'http/vulnerabilities/generic/cors-misconfig.yaml',
    dsl: "contains(tolower(header), 'access-control-allow-origin: {{cors_origin}}')",
  },
  {
    from: 'http/vulnerabilities/generic/cors-misconfig.yaml',
    dsl: "contains(tolower(header), 'access-control-allow-credentials: true')",
  },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', dsl: 'status_code == 200' },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', dsl: 'contains(body, "projectsend")' },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', dsl: 'status_code == 500' },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', dsl: 'contains(content_type, "text/html")' },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', dsl: 'contains(body, "{{string}}")' },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', dsl: 'contains(body, "{{title}}")' },
  {
    from: 'http/misconfiguration/akamai/akamai-s3-cache-poisoning.yaml',
    dsl: 'contains(body_2, "alert(document.domain)")',
  },
  {
    from: 'http/default-logins/apache/airflow-default-login.yaml',
    dsl: 'contains(body_1, "Sign In - Airflow")',
  },
  { from: 'http/default-logins/apache/airflow-default-login.yaml', dsl: 'contains(header_2, "session=.")' },
  { from: 'http/default-logins/apache/airflow-default-login.yaml', dsl: 'status_code_2 == 302' },
  {
    from: 'http/default-logins/phpmyadmin/phpmyadmin-default-login.yaml',
    dsl: 'contains(header_2, "phpMyAdmin=") && contains(header_2, "pmaUser-1=")',
  },
  {
    from: 'http/default-logins/phpmyadmin/phpmyadmin-default-login.yaml',
    dsl: "contains(header_2, 'index.php?collation_connection=utf8mb4_unicode_ci') || contains(header_2, '/index.php?route=/&route=%2F')",
  },
  { from: 'http/default-logins/emqx/emqx-default-login.yaml', dsl: 'body == "{\\"code\\":0}"' },
  {
    from: 'http/default-logins/emqx/emqx-default-login.yaml',
    dsl: 'contains(body, "\\"token\\":") && contains(body, "\\"license\\":")',
  },
  {
    from: 'http/default-logins/emqx/emqx-default-login.yaml',
    dsl: "contains(content_type, 'application/json')",
  },
  { from: 'http/default-logins/jenkins/jenkins-default.yaml', dsl: 'contains(body_3, "/logout")' },
  {
    from: 'http/default-logins/jenkins/jenkins-default.yaml',
    dsl: 'contains(body_3, "Dashboard [Jenkins]")',
  },
  {
    from: 'http/default-logins/apollo/apollo-default-login.yaml',
    dsl: 'status_code_1 == 302 && status_code_2 == 200',
  },
  {
    from: 'http/default-logins/apollo/apollo-default-login.yaml',
    dsl: "contains(tolower(header_2), 'application/json')",
  },
  {
    from: 'http/default-logins/barco-clickshare-default-login.yaml',
    dsl: 'status_code_2 == 303 || status_code_2 == 302',
  },
  {
    from: 'http/default-logins/barco-clickshare-default-login.yaml',
    dsl: 'contains(body_3, "ClickShare Configuration Wizard")',
  },
  {
    from: 'http/default-logins/barco-clickshare-default-login.yaml',
    dsl: 'contains(location_2, "/dashboard")',
  },
  {
    from: 'http/default-logins/d-link/dlink-centralized-default-login.yaml',
    dsl: 'status_code_1 == 200 && !contains(body_1,"flag=0")',
  },
  {
    from: 'http/default-logins/apache/superset-default-login.yaml',
    dsl: 'contains_any(body, "alt=\\"Superset\\"", "<title>Superset</title>", "SUPERSET", "superset")',
  },
  {
    from: 'http/default-logins/apache/superset-default-login.yaml',
    dsl: 'contains_all(body, "access_toke", "refresh_token")',
  },
  {
    from: 'http/default-logins/caprover/caprover-default-login.yaml',
    dsl: 'contains_all(body, "status\\":100", "Login succeeded", "token\\":")',
  },
  {
    from: 'http/default-logins/caprover/caprover-default-login.yaml',
    dsl: 'contains(header, "application/json")',
  },
  {
    from: 'http/default-logins/casdoor-default-login.yaml',
    dsl: 'contains_any(to_lower(body), "casdoor", "casbin", "app-built-in")',
  },
  {
    from: 'http/default-logins/casdoor-default-login.yaml',
    dsl: 'contains_all(body, "\\"status\\":\\"ok\\"", "\\"data\\":\\"built-in/")',
  },
  {
    from: 'http/default-logins/alfresco-default-login.yaml',
    dsl: 'status_code == 200 || status_code == 302',
  },
  {
    from: 'http/default-logins/alfresco-default-login.yaml',
    dsl: 'contains_any(body, "Alfresco", "alfresco") || contains_any(to_lower(header), "alfresco", "/share")',
  },
  { from: 'http/default-logins/alfresco-default-login.yaml', dsl: 'contains_all(body, "ticket", "TICKET_")' },
  {
    from: 'http/default-logins/camaleon/camaleon-default-login.yaml',
    dsl: 'contains(location,"/admin/dashboard")',
  },
  {
    from: 'http/default-logins/checkmk-default-login.yaml',
    dsl: 'contains_all(to_lower(header), "set-cookie", "auth_", "index.py")',
  },
  { from: 'http/exposures/files/ds-store-file.yaml', dsl: "contains(body, '\u0000@\u0000')" },
  { from: 'http/exposures/files/ds-store-file.yaml', dsl: "contains(hex_encode(body), '0000000142756431')" },
  {
    from: 'http/exposures/files/ds-store-file.yaml',
    dsl: 'contains(to_lower(header), "accept-ranges: bytes")',
  },
  { from: 'http/exposures/files/ds-store-file.yaml', dsl: 'contains(to_lower(header), "octet-stream")' },
  { from: 'http/exposures/configs/aws-credentials.yaml', dsl: "!contains(tolower(body), '<html')" },
  { from: 'http/exposures/configs/aws-credentials.yaml', dsl: "!contains(tolower(body), '<body')" },
  {
    from: 'http/cves/2024/CVE-2024-0012.yaml',
    dsl: 'contains_any(body, "<title>Zero Touch Provisioning", "Zero Touch Provisioning (ZTP)")',
  },
  { from: 'http/cves/2024/CVE-2024-0012.yaml', dsl: 'contains(body, "/scripts/cache/mainui.javascript")' },
  { from: 'http/cves/2024/CVE-2024-0012.yaml', dsl: 'contains(header, "PHPSESSID=")' },
  { from: 'http/cves/2024/CVE-2024-10914.yaml', dsl: "regex('uid=([0-9(a-z)]+) gid=([0-9(a-z)]+)', body)" },
  { from: 'http/cves/2024/CVE-2024-10914.yaml', dsl: "contains_all(body, 'inet addr:', 'Mask:')" },
  { from: 'http/cves/2024/CVE-2024-10914.yaml', dsl: 'contains(body, "Content-type: text/html")' },
  { from: 'http/cves/2024/CVE-2024-0352.yaml', dsl: 'contains(body, "\\"name\\":\\"{{filename}}.php\\"")' },
  {
    from: 'http/cves/2024/CVE-2024-0352.yaml',
    dsl: 'contains_all(body, "code\\":1", "base_url\\":\\"uploads\\\\/user")',
  },
  {
    from: 'http/technologies/apache/airflow-detect.yaml',
    dsl: 'status_code == 404 && contains(to_lower(body), "airflow 404")',
  },
  {
    from: 'http/technologies/apache/airflow-detect.yaml',
    dsl: 'status_code == 200 && contains(to_lower(body), "airflow api")',
  },
  {
    from: 'http/misconfiguration/apache/apache-server-status.yaml',
    dsl: 'contains_any(body, "Apache Server Status", "Apache Server Information")',
  },
  { from: 'http/misconfiguration/apache/apache-server-status.yaml', dsl: 'contains(body, "Server Version")' },
  { from: 'http/default-logins/sonarqube/sonarqube-default-login.yaml', dsl: 'len(body) == 0' },
  {
    from: 'http/default-logins/sonarqube/sonarqube-default-login.yaml',
    dsl: 'contains(set_cookie, "JWT-SESSION=")',
  },
  { from: 'nuclei pkg/dsl tests', dsl: 'unixtime() > not_after' },
];

/** Request text, payload values and `variables:` values with `{{…}}` placeholders. */
export const REAL_TEMPLATE_TEXT: readonly RealTemplateText[] = [
  {
    from: 'http/default-logins/rabbitmq/rabbitmq-default-login.yaml',
    text: "GET /api/whoami HTTP/1.1\nHost: {{Hostname}}\nContent-Type: application/x-www-form-urlencoded\nAuthorization: Basic {{base64(username + ':' + password)}}\n",
  },
  {
    from: 'http/default-logins/audiocodes/audiocodes-default-login.yaml',
    text: 'POST /login.cgi HTTP/1.1\nHost: {{Hostname}}\nContent-Type: application/x-www-form-urlencoded\n\nuser={{username}}&psw={{url_encode(base64("{{password}}"))}}\n',
  },
  {
    from: 'http/default-logins/camunda/camunda-default-login.yaml',
    text: 'POST /camunda/api/admin/auth/user/default/login/welcome HTTP/1.1\nHost: {{Hostname}}\nX-Xsrf-Token: {{xsrf_token}}\n\nusername={{username}}&password={{password}}\n',
  },
  {
    from: 'http/vulnerabilities/generic/cors-misconfig.yaml',
    text: 'https://{{tolower(rand_base(5))}}{{RDN}}',
  },
  {
    from: 'http/vulnerabilities/generic/cors-misconfig.yaml',
    text: 'https://{{FQDN}}.{{tolower(rand_base(5))}}.com',
  },
  { from: 'http/vulnerabilities/generic/cors-misconfig.yaml', text: "https://{{replace(FQDN,'.','a')}}" },
  {
    from: 'http/vulnerabilities/generic/cors-misconfig.yaml',
    text: 'GET  HTTP/1.1\nHost: {{Hostname}}\nOrigin: {{cors_origin}}\n',
  },
  { from: 'http/misconfiguration/akamai/akamai-s3-cache-poisoning.yaml', text: '{{rand_base(5)}}' },
  {
    from: 'http/misconfiguration/akamai/akamai-s3-cache-poisoning.yaml',
    text: 'GET /nuclei.svg?{{rand}}=x HTTP/1.1\nHost: {{Hostname}}\n{{escape}}Host: {{bucket}}\n\n',
  },
  { from: 'http/cves/2024/CVE-2024-11680.yaml', text: '{{randstr}}' },
  {
    from: 'http/cves/2024/CVE-2024-11680.yaml',
    text: 'csrf_token={{csrf}}&section=general&this_install_title={{string}}',
  },
  { from: 'http/cves/2024/CVE-2024-0352.yaml', text: '{{rand_base(6)}}' },
  {
    from: 'http/cves/2024/CVE-2024-0352.yaml',
    text: 'Content-Disposition: form-data; name="file";filename="{{filename}}.php"\nContent-Type: application/x-php\n\n{{randstr}}\n',
  },
  {
    from: 'http/cves/2024/CVE-2024-1071.yaml',
    text: '@timeout: 10s\nPOST /wp-admin/admin-ajax.php?action=um_get_members HTTP/1.1\nHost: {{Hostname}}\n\ndirectory_id=b9238&sorting=user_login,SLEEP(5)&nonce={{nonce}}\n',
  },
  {
    from: 'http/default-logins/checkmk-default-login.yaml',
    text: 'POST {{endpoint}} HTTP/1.1\nHost: {{Hostname}}\n',
  },
  {
    from: 'http/default-logins/emqx/emqx-default-login.yaml',
    text: '{"username":"{{username}}","password":"{{password}}"}',
  },
  {
    from: 'http/default-logins/phpmyadmin/phpmyadmin-default-login.yaml',
    text: 'Cookie: phpMyAdmin={{token2}}; pma_lang=en\n\nset_session={{session}}&pma_username={{user}}&pma_password={{password}}&server=1&route=%2F&token={{token}}',
  },
  {
    from: 'http/default-logins/apache/karaf-default-login.yaml',
    text: "Authorization: Basic {{base64('karaf:karaf')}}",
  },
  {
    from: 'http/technologies/wordpress/plugins/contact-form-7.yaml',
    text: '{{BaseURL}}/wp-content/plugins/contact-form-7/readme.txt',
  },
  { from: 'http/technologies/apache/airflow-detect.yaml', text: '{{BaseURL}}/{{randstr}}' },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '01: {{base64("Hello")}}' },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '02: {{base64(1234)}}' },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '03: {{base64_decode("SGVsbG8=")}}',
  },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '04: {{base64_py("Hello")}}' },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: "05: {{compare_versions('v1.0.0', '>v0.0.1', '<v1.0.1')}}",
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '06: {{concat("Hello", "world")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '07: {{contains("Hello", "lo")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '08: {{contains_all("Hello everyone", "lo", "every")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '09: {{contains_any("Hello everyone", "abc", "llo")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '10: {{date_time("%Y-%M-%D")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '11: {{date_time("%Y-%M-%D", unix_time())}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '13: {{date_time("02-01-2006 15:04")}}',
  },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '15: {{dec_to_hex(11111)}}' },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '17: {{gzip("Hello")}}' },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '18: {{gzip_decode(hex_decode("1f8b08000000000000fff248cdc9c907040000ffff8289d1f705000000"))}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '21: {{hmac("sha1", "test", "scrt")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '24: {{html_escape("<body>test</body>")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '26: {{join("_", "hello", "world")}}',
  },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '28: {{len(5555)}}' },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '31: {{mmh3("Hello")}}' },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '39: {{rand_int(1, 10)}}' },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '43: {{rand_ip("2002:c0a8::/24")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '50: {{rand_text_numeric(10, 123)}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '56: {{replace_regex("He123llo", "(\\\\d+)", "")}}',
  },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '69: {{unix_time(10)}}' },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '71: {{url_encode("https://projectdiscovery.io/test?a=1")}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '74: {{zlib_decode(hex_decode("789cf248cdc9c907040000ffff058c01f5"))}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '75: {{hex_encode(aes_gcm("AES256Key-32Characters1234567890", "exampleplaintext"))}}',
  },
  { from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml', text: '80: {{sort("a1b2c3d4e5")}}' },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '82: {{join(" ", sort("b", "a", "2", "c", "3", "1", "d", "4"))}}',
  },
  {
    from: 'nuclei integration_tests/protocols/http/dsl-functions.yaml',
    text: '85: {{split("ab,cd,efg", ",", 2)}}',
  },
];
