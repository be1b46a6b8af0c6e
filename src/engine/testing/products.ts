/**
 * Fixture products for the template corpus (test/corpus): for each real template, a small route table
 * imitating the product it detects or logs in to, another one that must not match (the product with
 * other credentials, or another product), and the findings nuclei reports against the first.
 */
import type { Socket } from 'node:net';
import type { FixtureRequest, FixtureResponse, Route } from './server.js';

/** A finding as compared: `matchedAt` is relative to the fixture's URL; `extracted` compared as a set. */
export interface ExpectedFinding {
  readonly matchedAt: string | RegExp;
  readonly matcherName?: string;
  readonly extractorName?: string;
  readonly extracted?: readonly string[];
  readonly meta?: Readonly<Record<string, string | RegExp>>;
}

export type RawHandler = (head: string, socket: Socket) => void;

/**
 * How a product fetches a URL it was given (a blind SSRF): the corpus test points it at its
 * out-of-band listener, as a host of a network whose resolver is the listener's DNS.
 */
export const productNetwork = { fetch: (_url: string): Promise<void> => Promise.resolve() };

export interface CorpusCase {
  /** Path under test/corpus. */
  readonly template: string;
  /** Target path appended to the fixture URL (default: none). */
  readonly input?: string;
  /**
   * Send to 127.0.0.1 while the target names this host (as `curl --resolve`), for templates that need
   * a registrable domain ({{RDN}}).
   */
  readonly hostname?: string;
  readonly product: readonly Route[] | RawHandler;
  readonly other: readonly Route[] | RawHandler;
  readonly expected: readonly ExpectedFinding[];
}

const json = (
  body: unknown,
  status = 200,
  headers: Record<string, string | string[]> = {},
): FixtureResponse => ({
  status,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const html = (
  body: string,
  status = 200,
  headers: Record<string, string | string[]> = {},
): FixtureResponse => ({
  status,
  headers: { 'Content-Type': 'text/html; charset=utf-8', ...headers },
  body,
});

/** `Authorization: Basic` with these credentials. */
const basic = (user: string, pass: string) => (r: FixtureRequest) =>
  r.headers.authorization === `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

const form = (r: FixtureRequest) => new URLSearchParams(r.body);

const unauthorized: Route = { path: /.*/, respond: json({ error: 'not_authorised' }, 401) };

const viewstateForm = `<html><body><form method="post" action="./"><div>
<input type="hidden" name="__VIEWSTATE" id="__VIEWSTATE" value="dDwtMTA4+/Nz==" />
<input type="hidden" name="__VIEWSTATEGENERATOR" id="__VIEWSTATEGENERATOR" value="C2EE9ABB" />
<input type="hidden" name="__EVENTVALIDATION" id="__EVENTVALIDATION" value="/wEWBA&x=1" />
</div><input name="txtID"/></form></body></html>`;

const svnEntries = '10\n\ndir\n0\nsvn://svn.example.org/repo/trunk\n';

export const CORPUS_CASES: readonly CorpusCase[] = [
  {
    template: 'http/cves/2021/CVE-2021-42258.yaml',
    product: [
      { method: 'GET', path: '/', respond: html(viewstateForm) },
      {
        method: 'POST',
        path: '/',
        when: (r) =>
          form(r).get('__VIEWSTATE') === 'dDwtMTA4+/Nz==' &&
          form(r).get('__EVENTVALIDATION') === '/wEWBA&x=1' &&
          form(r).get('txtID') === "uname'",
        respond: html(
          "<b>System.Data.SqlClient.SqlException: Incorrect syntax near 'passwd'.</b> _ACCOUNTLOCKED",
          500,
        ),
      },
    ],
    other: [
      { method: 'GET', path: '/', respond: html(viewstateForm) },
      { method: 'POST', path: '/', respond: html('<b>Invalid user name or password</b>') },
    ],
    expected: [{ matchedAt: '/' }],
  },
  {
    template: 'http/cves/2023/CVE-2023-6970.yaml',
    product: [
      {
        path: '/wp-json/wp/v2/wprm_recipe',
        when: (r) => r.query.get('per_page') === '5',
        respond: json([
          { id: 11, type: 'wprm_recipe' },
          { id: 12, type: 'wprm_recipe' },
        ]),
      },
      {
        path: '/',
        when: (r) => r.query.get('wprm_print') === '12',
        respond: (r) => html(`<a class="wprm-print-button-back" href="${r.headers.referer ?? ''}">Back</a>`),
      },
      { path: '/', respond: html('<p>no such recipe</p>', 404) },
    ],
    other: [
      {
        path: '/wp-json/wp/v2/wprm_recipe',
        respond: json([{ id: 11, type: 'wprm_recipe' }]),
      },
      {
        path: '/',
        respond: (r) =>
          html(`<a class="wprm-print-button-back" href="${encodeURI(r.headers.referer ?? '')}">Back</a>`),
      },
    ],
    expected: [{ matchedAt: '/?wprm_print=12' }],
  },
  {
    template: 'http/cves/2024/CVE-2024-45309.yaml',
    product: [
      {
        path: '/~projects',
        respond: html(
          '<title>OneDev</title>\n<a class="mr-1" id="p1" href="/demo">demo</a>\n<a class="mr-2" id="p2" href="/tools">tools</a>\n',
        ),
      },
      {
        path: /^\/(demo|tools)\/~site\/+(%2e%2e\/)+etc\/passwd$/,
        respond: {
          headers: {
            'Content-Type': 'application/octet-stream',
            'Content-Disposition': 'attachment; filename=passwd',
          },
          body: 'root:x:0:0:root:/root:/bin/bash\n',
        },
      },
      { path: /.*/, respond: html('<p>OneDev: not found</p>', 404) },
    ],
    other: [
      {
        path: '/~projects',
        respond: html('<title>OneDev</title>\n<a class="mr-1" id="p1" href="/demo">demo</a>\n'),
      },
      { path: /.*/, respond: html('<p>OneDev: not found</p>', 404) },
    ],
    expected: [
      { matchedAt: /^\/demo\/~site\/{8}(%2e%2e\/){6}%2e%2e\/etc\/passwd$/, meta: { path: '/etc/passwd' } },
      { matchedAt: /^\/tools\/~site\/{8}(%2e%2e\/){6}%2e%2e\/etc\/passwd$/, meta: { path: '/etc/passwd' } },
    ],
  },
  {
    template: 'http/cves/2024/CVE-2024-0204.yaml',
    product: [
      {
        path: '/goanywhere/images/..;/wizard/InitialAccountSetup.xhtml',
        respond: html('<h1>Create an administrator account</h1><p>goanywhere setup</p>'),
      },
    ],
    other: [
      {
        path: '/goanywhere/wizard/InitialAccountSetup.xhtml',
        respond: html('Create an administrator account goanywhere'),
      },
      { path: /.*/, respond: html('<p>goanywhere: page not found</p>', 404) },
    ],
    expected: [{ matchedAt: '/goanywhere/images/..;/wizard/InitialAccountSetup.xhtml' }],
  },
  {
    template: 'http/cves/2024/CVE-2024-0352.yaml',
    product: [
      {
        method: 'POST',
        path: '/api/file/formimage',
        respond: (r) => {
          const name = /filename="([^"]+)"/.exec(r.body)?.[1] ?? 'x';
          return json(
            `{"code":1,"show":0,"msg":"ok","data":{"id":7,"name":"${name}","base_url":"uploads\\/user\\/20240109","url":"http:\\/\\/shop.example\\/uploads\\/user\\/20240109\\/f00d.php"}}`,
          );
        },
      },
    ],
    other: [
      {
        method: 'POST',
        path: '/api/file/formimage',
        respond: json({ code: 0, msg: 'file type not allowed' }),
      },
    ],
    expected: [
      { matchedAt: '/api/file/formimage', extracted: ['http://shop.example/uploads/user/20240109/f00d.php'] },
    ],
  },
  {
    template: 'http/cves/2024/CVE-2024-1071.yaml',
    product: [
      {
        method: 'GET',
        path: '/',
        respond: html('<script>var um_scripts = {"nonce":"9f8e7d6c5b"};</script>'),
      },
      {
        method: 'POST',
        path: '/wp-admin/admin-ajax.php',
        when: (r) => r.query.get('action') === 'um_get_members' && form(r).get('nonce') === '9f8e7d6c5b',
        // The injected SLEEP(5) runs: the answer comes after five seconds.
        respond: {
          ...json({ success: true, data: { pagination: { current_page: 1, total_pages: 1 } } }),
          delayMs: 5100,
        },
      },
    ],
    other: [
      {
        method: 'GET',
        path: '/',
        respond: html('<script>var um_scripts = {"nonce":"9f8e7d6c5b"};</script>'),
      },
      {
        method: 'POST',
        path: '/wp-admin/admin-ajax.php',
        respond: json({ success: true, data: { pagination: { current_page: 1, total_pages: 1 } } }),
      },
    ],
    expected: [{ matchedAt: '/wp-admin/admin-ajax.php?action=um_get_members' }],
  },
  {
    template: 'http/default-logins/activemq/activemq-default-login.yaml',
    product: [
      {
        path: '/admin/',
        when: basic('admin', 'admin'),
        respond: html('<h1>Welcome to the Apache ActiveMQ Console of <b>localhost</b></h1><h2>Broker</h2>'),
      },
      unauthorized,
    ],
    other: [unauthorized],
    expected: [{ matchedAt: '/admin/', meta: { username: 'admin', password: 'admin' } }],
  },
  {
    template: 'http/default-logins/apache/airflow-default-login.yaml',
    product: [
      {
        method: 'GET',
        path: '/login/',
        respond: html(
          '<title>Sign In - Airflow</title><input id="csrf_token" type="hidden" value="IjM0YjIi.Zx">',
        ),
      },
      {
        method: 'POST',
        path: '/login/',
        when: (r) => r.body === 'username=airflow&password=airflow&_csrf_token=IjM0YjIi.Zx',
        respond: html(
          'Redirecting...\nYou should be redirected automatically to target URL: <a href="/">/</a>.',
          302,
          { Location: '/', 'Set-Cookie': 'session=.eJwlzjsOwj; HttpOnly; Path=/' },
        ),
      },
    ],
    other: [
      {
        method: 'GET',
        path: '/login/',
        respond: html(
          '<title>Sign In - Airflow</title><input id="csrf_token" type="hidden" value="IjM0YjIi.Zx">',
        ),
      },
      {
        method: 'POST',
        path: '/login/',
        respond: html('<title>Sign In - Airflow</title> Invalid login. Please try again.'),
      },
    ],
    expected: [{ matchedAt: '/login/', meta: { username: 'airflow', password: 'airflow' } }],
  },
  {
    template: 'http/default-logins/apache/apisix-default-login.yaml',
    product: [
      {
        method: 'POST',
        path: '/apisix/admin/user/login',
        when: (r) => r.headers.authorization === '' && r.body === '{"username":"admin","password":"admin"}',
        respond: json(
          '{"code":0,"message":"","data":{"token":"eyJhbGciOiJIUzI1NiJ9.e30.x"},"request_id":"a1"}',
        ),
      },
    ],
    other: [
      {
        method: 'POST',
        path: '/apisix/admin/user/login',
        respond: json('{"code":10001,"message":"username or password error","data":{},"request_id":"a2"}'),
      },
    ],
    expected: [{ matchedAt: '/apisix/admin/user/login', meta: { user: 'admin', pass: 'admin' } }],
  },
  {
    template: 'http/default-logins/apache/tomcat-default-login.yaml',
    product: [
      {
        path: '/manager/html',
        when: basic('tomcat', 's3cret'),
        respond: html(
          '<title>/manager</title> Apache Tomcat Web Application Manager. Server Information: Tomcat Version 9.0.83, JVM Version 17',
        ),
      },
      {
        path: /.*/,
        respond: html('401 Unauthorized', 401, {
          'WWW-Authenticate': 'Basic realm="Tomcat Manager Application"',
        }),
      },
    ],
    other: [{ path: /.*/, respond: html('401 Unauthorized', 401) }],
    expected: [{ matchedAt: '/manager/html', meta: { username: 'tomcat', password: 's3cret' } }],
  },
  {
    template: 'http/default-logins/batflat/batflat-default-login.yaml',
    product: [
      {
        method: 'POST',
        path: '/admin/',
        when: (r) => r.body === 'username=admin&password=admin&login=',
        respond: html('', 302, { Location: '/admin/dashboard/main', 'Set-Cookie': 'bat_session=ok; Path=/' }),
      },
      {
        method: 'GET',
        path: '/admin/dashboard/main',
        when: (r) => r.cookies.bat_session === 'ok',
        respond: html('<title>Batflat - Dashboard</title>'),
      },
    ],
    other: [{ path: /.*/, respond: html('<title>Batflat - Login</title>') }],
    expected: [{ matchedAt: '/admin/dashboard/main', meta: { username: 'admin', password: 'admin' } }],
  },
  {
    template: 'http/default-logins/camaleon/camaleon-default-login.yaml',
    product: [
      {
        method: 'GET',
        path: '/admin/login',
        respond: html('<input type="hidden" name="authenticity_token" value="AbC+12==" />'),
      },
      {
        method: 'POST',
        path: '/admin/login',
        when: (r) =>
          r.body === 'authenticity_token=AbC+12==&user%5Busername%5D=admin&user%5Bpassword%5D=admin123',
        respond: html('redirected', 302, { Location: 'http://127.0.0.1/admin/dashboard' }),
      },
    ],
    other: [
      {
        method: 'GET',
        path: '/admin/login',
        respond: html('<input type="hidden" name="authenticity_token" value="AbC+12==" />'),
      },
      { method: 'POST', path: '/admin/login', respond: html('Invalid user or password') },
    ],
    expected: [{ matchedAt: '/admin/login' }],
  },
  {
    template: 'http/default-logins/camunda/camunda-default-login.yaml',
    product: [
      {
        method: 'GET',
        path: '/camunda/app/welcome/default/',
        respond: html('<title>Camunda Welcome</title>', 200, {
          'Set-Cookie': 'XSRF-TOKEN=7A3B9C1D2E; Path=/camunda',
        }),
      },
      {
        method: 'POST',
        path: '/camunda/api/admin/auth/user/default/login/welcome',
        when: (r) => r.headers['x-xsrf-token'] === '7A3B9C1D2E' && r.body === 'username=demo&password=demo',
        respond: json({ userId: 'demo', authorizedApps: ['cockpit', 'tasklist', 'admin', 'welcome'] }),
      },
    ],
    other: [
      {
        method: 'GET',
        path: '/camunda/app/welcome/default/',
        respond: html('<title>Camunda Welcome</title>', 200, {
          'Set-Cookie': 'XSRF-TOKEN=7A3B9C1D2E; Path=/camunda',
        }),
      },
      {
        method: 'POST',
        path: '/camunda/api/admin/auth/user/default/login/welcome',
        respond: json({ type: 'AuthenticationException' }, 401),
      },
    ],
    expected: [
      {
        matchedAt: '/camunda/api/admin/auth/user/default/login/welcome',
        meta: { username: 'demo', password: 'demo' },
      },
    ],
  },
  {
    template: 'http/default-logins/cobbler/cobbler-default-login.yaml',
    product: [
      {
        method: 'POST',
        path: '/cobbler_api',
        respond: (r) =>
          r.body.includes('<string>cobbler</string>') && !r.body.includes('testing')
            ? {
                headers: { 'Content-Type': 'text/xml' },
                body: "<?xml version='1.0'?><methodResponse><params><param><value><string>dGhpcy1pcy1hLXRva2Vu==</string></value></param></params></methodResponse>",
              }
            : {
                headers: { 'Content-Type': 'text/xml' },
                body: "<?xml version='1.0'?><methodResponse><fault><value><struct><member><name>faultCode</name><value><int>1</int></value></member><member><name>faultString</name><value><string>login failed</string></value></member></struct></value></fault></methodResponse>",
              },
      },
    ],
    other: [
      {
        method: 'POST',
        path: '/cobbler_api',
        respond: {
          headers: { 'Content-Type': 'text/xml' },
          body: "<?xml version='1.0'?><methodResponse><fault><value><struct><member><name>faultCode</name><value><int>1</int></value></member><member><name>faultString</name><value><string>login failed (cobbler)</string></value></member></struct></value></fault></methodResponse>",
        },
      },
    ],
    expected: [{ matchedAt: '/cobbler_api', meta: { username: 'cobbler', password: 'cobbler' } }],
  },
  {
    template: 'http/default-logins/grafana/grafana-default-login.yaml',
    product: [
      {
        method: 'POST',
        path: '/login',
        when: (r) => r.body === '{"user":"admin","password":"admin"}',
        respond: json({ message: 'Logged in', redirectUrl: '/' }, 200, {
          'Set-Cookie': 'grafana_session=5f1d; Path=/; HttpOnly',
        }),
      },
      { method: 'POST', path: '/login', respond: json({ message: 'Invalid username or password' }, 401) },
    ],
    other: [
      { method: 'POST', path: '/login', respond: json({ message: 'Invalid username or password' }, 401) },
    ],
    expected: [{ matchedAt: '/login', meta: { username: 'admin', password: 'admin' } }],
  },
  {
    template: 'http/default-logins/jenkins/jenkins-default.yaml',
    product: [
      {
        method: 'GET',
        path: '/',
        when: (r) => r.cookies.JSESSIONID === 'node0abc',
        respond: html('<title>Dashboard [Jenkins]</title><a href="/logout">log out</a>'),
      },
      { method: 'GET', path: '/', respond: html('<title>Sign in [Jenkins]</title>') },
      {
        method: 'POST',
        path: '/j_spring_security_check',
        when: (r) => form(r).get('j_username') === 'admin' && form(r).get('j_password') === 'admin',
        respond: html('', 302, { Location: '/', 'Set-Cookie': 'JSESSIONID=node0abc; Path=/; HttpOnly' }),
      },
    ],
    other: [
      { method: 'GET', path: '/', respond: html('<title>Sign in [Jenkins]</title>') },
      {
        method: 'POST',
        path: '/j_spring_security_check',
        respond: html('', 302, { Location: '/loginError' }),
      },
    ],
    expected: [{ matchedAt: '/' }],
  },
  {
    template: 'http/default-logins/nacos/nacos-default-login.yaml',
    product: [
      {
        method: 'POST',
        path: '/nacos/v1/auth/users/login',
        when: (r) => r.body === 'username=nacos&password=nacos',
        respond: json({
          accessToken: 'eyJhbGciOiJIUzI1NiJ9.e30.y',
          tokenTtl: 18000,
          globalAdmin: true,
          username: 'nacos',
        }),
      },
    ],
    other: [
      { method: 'POST', path: /login$/, respond: json({ status: 403, message: 'unknown user!' }, 403) },
    ],
    expected: [{ matchedAt: '/nacos/v1/auth/users/login', meta: { username: 'nacos', password: 'nacos' } }],
  },
  {
    template: 'http/default-logins/phpmyadmin/phpmyadmin-default-login.yaml',
    product: [
      {
        method: 'GET',
        path: '/index.php',
        respond: html(
          '<input type="hidden" name="set_session" value="5d1e2f"><input type="hidden" name="token" value="7c3a9b">',
          200,
          {
            'Set-Cookie': 'phpMyAdmin=5d1e2f; path=/; HttpOnly',
          },
        ),
      },
      {
        method: 'POST',
        path: '/index.php',
        when: (r) =>
          r.cookies.phpMyAdmin === '5d1e2f' &&
          form(r).get('set_session') === '5d1e2f' &&
          form(r).get('token') === '7c3a9b' &&
          form(r).get('pma_username') === 'root' &&
          form(r).get('pma_password') === 'root',
        respond: html('', 302, {
          Location: 'index.php?collation_connection=utf8mb4_unicode_ci&token=7c3a9b',
          'Set-Cookie': ['phpMyAdmin=9e8d7c; path=/; HttpOnly', 'pmaUser-1=abcdef; path=/; HttpOnly'],
        }),
      },
      { method: 'POST', path: '/index.php', respond: html('Cannot log in to the MySQL server') },
    ],
    other: [
      {
        method: 'GET',
        path: '/index.php',
        respond: html(
          '<input type="hidden" name="set_session" value="5d1e2f"><input type="hidden" name="token" value="7c3a9b">',
          200,
          { 'Set-Cookie': 'phpMyAdmin=5d1e2f; path=/' },
        ),
      },
      { method: 'POST', path: '/index.php', respond: html('Cannot log in to the MySQL server') },
    ],
    expected: [{ matchedAt: '/index.php', meta: { user: 'root', password: 'root' } }],
  },
  {
    template: 'http/default-logins/rabbitmq/rabbitmq-default-login.yaml',
    product: [
      {
        path: '/api/whoami',
        when: basic('guest', 'guest'),
        respond: json('{"name":"guest","tags":["administrator"]}'),
      },
      unauthorized,
    ],
    other: [unauthorized],
    expected: [{ matchedAt: '/api/whoami', meta: { username: 'guest', password: 'guest' } }],
  },
  {
    template: 'http/default-logins/xxljob/xxljob-default-login.yaml',
    product: [
      {
        method: 'POST',
        path: '/xxl-job-admin/login',
        when: (r) => r.body === 'userName=admin&password=123456',
        respond: json('{"code":200,"msg":null,"content":null}', 200, {
          'Set-Cookie': 'XXL_JOB_LOGIN_IDENTITY=7b226964; Path=/',
        }),
      },
    ],
    other: [
      {
        method: 'POST',
        path: /login$/,
        respond: json('{"code":500,"msg":"wrong user name or password","content":null}'),
      },
    ],
    expected: [{ matchedAt: '/xxl-job-admin/login', meta: { username: 'admin', password: '123456' } }],
  },
  {
    template: 'http/exposed-panels/adminer-panel.yaml',
    product: [
      {
        path: '/adminer/',
        when: (r) => r.headers['accept-language'] === 'en-US,en;q=0.5',
        respond: html(
          '<title>Login - Adminer</title><h1><a href="https://www.adminer.org/">Adminer</a> <span class="version">4.8.1</span></h1>',
        ),
      },
    ],
    other: [{ path: /.*/, respond: html('<title>phpMyAdmin</title>', 404) }],
    expected: [{ matchedAt: '/adminer/', extracted: ['4.8.1'] }],
  },
  {
    template: 'http/exposures/configs/aws-credentials.yaml',
    product: [
      {
        path: '/.aws/credentials',
        respond: {
          headers: { 'Content-Type': 'application/octet-stream' },
          body: '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n',
        },
      },
    ],
    other: [
      { path: /.*/, respond: html('<html><body><p>aws_access_key_id = see the docs</p></body></html>') },
    ],
    expected: [
      {
        matchedAt: '/.aws/credentials',
        extracted: ['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
      },
    ],
  },
  {
    template: 'http/exposures/configs/composer-config.yaml',
    product: [
      { path: '/composer.json', respond: json('{"require":{"php":">=8.1","laravel/framework":"^10.0"}}') },
      {
        path: '/composer.lock',
        respond: {
          headers: { 'Content-Type': 'application/octet-stream' },
          body: '{"packages":[{"name":"laravel/framework"}]}',
        },
      },
    ],
    other: [{ path: /.*/, respond: html('<html>require packages</html>') }],
    expected: [
      { matchedAt: '/composer.json', matcherName: 'composer.json' },
      { matchedAt: '/composer.lock', matcherName: 'composer.lock' },
    ],
  },
  {
    template: 'http/exposures/configs/exposed-svn.yaml',
    product: [
      { path: '/.svn/entries', respond: { headers: { 'Content-Type': 'text/plain' }, body: svnEntries } },
    ],
    other: [
      {
        path: '/.svn/entries',
        respond: { headers: { 'Content-Type': 'text/plain' }, body: 'User-agent: *\nDisallow:\n' },
      },
    ],
    expected: [{ matchedAt: '/.svn/entries' }],
  },
  {
    template: 'http/misconfiguration/akamai/akamai-s3-cache-poisoning.yaml',
    product: cachePoisoning(true),
    other: cachePoisoning(false),
    expected: [
      {
        matchedAt: /^\/nuclei\.svg\?[0-9A-Za-z]{5}=x$/,
        meta: { escape: '\x0c', bucket: 'nuclei-ap-northeast-2' },
      },
    ],
  },
  {
    template: 'http/technologies/akamai-detect.yaml',
    product: [
      {
        path: '/',
        when: (r) => r.headers.pragma === 'akamai-x-cache-on',
        respond: html('<html>shop</html>', 200, {
          'X-Cache': 'TCP_MISS from a23-45-67-89.deploy.akamaitechnologies.com (AkamaiGHost/11.2.0)',
        }),
      },
    ],
    other: [{ path: '/', respond: html('<html>shop</html>', 200, { 'X-Cache': 'MISS from varnish' }) }],
    expected: [{ matchedAt: '/' }],
  },
  {
    template: 'http/technologies/angular-detect.yaml',
    product: [{ path: '/', respond: html('<app-root _nghost-ng-c1 ng-version="17.3.1"></app-root>') }],
    other: [{ path: '/', respond: html('<div id="root" data-reactroot=""></div>') }],
    expected: [{ matchedAt: '/', extracted: ['17.3.1'] }],
  },
  {
    template: 'http/technologies/apache/apache-detect.yaml',
    product: [{ path: '/', respond: html('<h1>It works!</h1>', 200, { Server: 'Apache/2.4.57 (Debian)' }) }],
    other: [{ path: '/', respond: html('<h1>Welcome to nginx!</h1>', 200, { Server: 'nginx/1.25.3' }) }],
    expected: [{ matchedAt: '/', extracted: ['Apache/2.4.57 (Debian)'] }],
  },
  {
    template: 'http/technologies/apache/tomcat-detect.yaml',
    product: [
      {
        path: '/',
        respond: html('<html><title>Apache Tomcat/9.0.83</title><a href="/manager/html">Manager</a></html>'),
      },
    ],
    other: [
      {
        path: /.*/,
        respond: html(
          '<h2>HTTP ERROR 404 Not Found</h2><hr><a href="https://eclipse.org/jetty">Powered by Jetty:// 12.0.5</a>',
          404,
          { Server: 'Jetty(12.0.5)' },
        ),
      },
    ],
    expected: [{ matchedAt: '/', extractorName: 'version', extracted: ['9.0.83'] }],
  },
  {
    template: 'http/technologies/wordpress/plugins/akismet.yaml',
    product: [
      {
        path: '/wp-content/plugins/akismet/readme.txt',
        respond: {
          headers: { 'Content-Type': 'text/plain' },
          body: '=== Akismet Anti-spam: Spam Protection ===\nStable tag: 4.1.2\nLicense: GPLv2\n',
        },
      },
    ],
    other: [{ path: /.*/, respond: html('<h1>Not Found</h1>', 404) }],
    expected: [
      {
        matchedAt: '/wp-content/plugins/akismet/readme.txt',
        matcherName: 'outdated_version',
        extracted: ['4.1.2'],
        meta: { last_version: '5.3.5' },
      },
    ],
  },
  {
    template: 'http/vulnerabilities/generic/cors-misconfig.yaml',
    hostname: 'shop.example.com',
    input: '/account',
    product: [
      {
        path: '/account',
        respond: (r) =>
          html('{}', 200, {
            'Access-Control-Allow-Origin': r.headers.origin ?? '*',
            'Access-Control-Allow-Credentials': 'true',
          }),
      },
    ],
    other: [
      {
        path: '/account',
        respond: html('{}', 200, {
          'Access-Control-Allow-Origin': 'https://shop.example.com',
          'Access-Control-Allow-Credentials': 'true',
        }),
      },
    ],
    expected: [
      {
        matchedAt: '/account',
        matcherName: 'arbitrary-origin',
        meta: { cors_origin: /^https:\/\/[a-z0-9]{5}example\.com$/ },
      },
    ],
  },
  {
    template: 'http/vulnerabilities/generic/generic-linux-lfi.yaml',
    product: [
      {
        path: '/..///////..////..//////etc/passwd',
        respond: {
          headers: { 'Content-Type': 'text/plain' },
          body: 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n',
        },
      },
    ],
    other: [{ path: /.*/, respond: html('<h1>Not Found</h1>', 404) }],
    expected: [
      {
        matchedAt: '/..///////..////..//////etc/passwd',
        meta: { paths: '/..///////..////..//////etc/passwd' },
      },
    ],
  },
  {
    template: 'http/vulnerabilities/wordpress/wordpress-ssrf-oembed.yaml',
    product: oembedProxy(true),
    other: oembedProxy(false),
    expected: [{ matchedAt: /^\/wp-json\/oembed\/1\.0\/proxy\?url=http:\/\/[0-9a-z]{33}\.oast\.test$/ }],
  },
];

/**
 * WordPress's oEmbed proxy: without `url` it asks for one; the vulnerable one fetches the URL it is
 * given in the background and answers at once, the other refuses it.
 */
function oembedProxy(vulnerable: boolean): Route[] {
  return [
    {
      path: '/wp-json/oembed/1.0/proxy',
      respond: (request) => {
        const url = request.query.get('url');
        if (url === null) {
          return json({ code: 'rest_missing_callback_param', message: 'Missing parameter(s): url' }, 400);
        }
        if (vulnerable) void productNetwork.fetch(url);
        return json(
          { code: 'rest_forbidden', message: 'Sorry, you are not allowed to make proxied oEmbed requests.' },
          401,
        );
      },
    },
  ];
}

/**
 * An S3-backed site behind a cache that keys on the first Host header but forwards a later one hidden
 * behind a control character: a request smuggling `\x0cHost: nuclei-ap-northeast-2` poisons the cache
 * entry of its path, which then serves that bucket's file. Raw TCP, since the request is not valid HTTP.
 */
function cachePoisoning(vulnerable: boolean): RawHandler {
  const poisoned = new Set<string>();
  return (head, socket) => {
    const target = head.split(' ')[1] ?? '/';
    if (vulnerable && head.includes('\r\n\x0cHost: nuclei-ap-northeast-2\r\n')) poisoned.add(target);
    const body = poisoned.has(target) ? '<svg onload="alert(document.domain)"/>' : '<svg></svg>';
    socket.write(
      `HTTP/1.1 200 OK\r\nContent-Type: image/svg+xml\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };
}
