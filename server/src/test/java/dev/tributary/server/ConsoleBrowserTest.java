package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser: Debian's headless Chromium driven by Selenium through its
 * chromedriver, one browser for the class, a fresh in-memory database behind each test. It runs a
 * query and reads the result table, watches a live SUBSCRIBE show a row INSERTed over JDBC, opens
 * a materialized view's details (columns, definition, size) and its dataflow graph, sees the
 * server's metrics plotted, and logs in with SCRAM as a role with a password whose privileges
 * then hold. Every wait is on the page's DOM; each test leaves a screenshot in
 * {@code target/console-screenshots/} for a reviewer.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    private static WebDriver browser;
    private ServedConsole served;

    @BeforeAll
    static void startBrowser() throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            throw new AssertionError("the console's browser test needs Debian's headless Chromium and its driver (" + CHROMIUM + ", " + CHROMEDRIVER
                    + "): apt-get install chromium chromium-driver (.ci/run installs them when missing)");
        }
        Files.createDirectories(SCREENSHOTS);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // --no-sandbox: CI runs as root, where Chromium's sandbox will not start
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) browser.quit();
    }

    @BeforeEach
    void serve() throws IOException {
        served = ServedConsole.start(200);
    }

    @AfterEach
    void screenshotAndStop(TestInfo test) throws IOException {
        try {
            if (browser != null) {
                screenshot(test.getTestMethod().orElseThrow().getName());
                // the next test's page must not share this one's session cookie or timers
                browser.get("about:blank");
                browser.manage().deleteAllCookies();
            }
        } finally {
            served.close();
        }
    }

    /** Saves what the browser shows as {@code name}.png for a reviewer. */
    private static void screenshot(String name) throws IOException {
        Files.write(SCREENSHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private static WebDriverWait waiting() {
        return new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    /** Loads the console and waits until it has drawn its editor, or its login form when roles have passwords. */
    private void open() {
        browser.get(served.uri("/").toString());
        waiting().until(ExpectedConditions.elementToBeClickable(By.cssSelector("#run, #login-user")));
    }

    /** Types {@code sql} into the editor and runs it. */
    private static void run(String sql) {
        WebElement editor = browser.findElement(By.id("sql"));
        editor.clear();
        editor.sendKeys(sql);
        browser.findElement(By.id("run")).click();
    }

    /** The cells of the rows of the table {@code css} finds, once it has at least {@code rows} of them. */
    private static List<List<String>> rowsOf(String css, int rows) {
        waiting().until(d -> d.findElements(By.cssSelector(css + " tbody tr")).size() >= rows);
        return browser.findElements(By.cssSelector(css + " tbody tr")).stream()
                .map(tr -> tr.findElements(By.tagName("td")).stream().map(WebElement::getText).toList()).toList();
    }

    @Test
    void aQueryShowsItsResultTableAndAnErrorItsCaret() {
        open();
        run("SELECT n, n * n AS square, NULL::text AS nothing FROM generate_series(1, 3) AS g(n) ORDER BY n");
        List<List<String>> rows = rowsOf(".results table", 3);
        assertThat(rows).containsExactly(List.of("1", "1", "NULL"), List.of("2", "4", "NULL"), List.of("3", "9", "NULL"));
        assertThat(browser.findElements(By.cssSelector(".results th")).stream().map(WebElement::getText)).containsExactly("n", "square", "nothing");
        assertThat(browser.findElement(By.cssSelector(".results .tag")).getText()).isEqualTo("SELECT 3");

        run("SELECT nope FROM (VALUES (1)) v(x)");
        WebElement error = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".results .error")));
        assertThat(error.getAttribute("data-sqlstate")).isEqualTo("42703");
        assertThat(error.getText()).contains("column \"nope\" does not exist").contains("SELECT nope FROM (VALUES (1)) v(x)\n       ^");
    }

    @Test
    void liveModeShowsARowInsertedOverJdbc() throws Exception {
        served.db().execute("CREATE TABLE orders (id int, item text)");
        served.db().execute("INSERT INTO orders VALUES (1, 'before')");
        open();
        browser.findElement(By.id("live")).click();
        run("SELECT id, item FROM orders");
        assertThat(rowsOf(".live table", 1)).containsExactly(List.of("1", "before"));
        try (Connection c = served.jdbc("tributary", null); Statement st = c.createStatement()) {
            st.executeUpdate("INSERT INTO orders VALUES (2, 'after')");
        }
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".live table tbody"), "after"));
        assertThat(rowsOf(".live table", 2)).containsExactlyInAnyOrder(List.of("1", "before"), List.of("2", "after"));
        WebElement fresh = browser.findElement(By.cssSelector(".live tr.fresh"));
        assertThat(fresh.getText()).contains("after");
        assertThat(served.db().activeSubscriptions()).isEqualTo(1);
    }

    @Test
    void anObjectShowsItsColumnsDefinitionSizeAndDataflowGraph() {
        served.db().execute("CREATE TABLE sales (region text NOT NULL, amount int)");
        served.db().execute("INSERT INTO sales VALUES ('north', 3), ('south', 4), ('north', 5)");
        served.db().execute("CREATE MATERIALIZED VIEW totals AS SELECT region, sum(amount) AS total FROM sales GROUP BY region");
        open();
        WebElement totals = waiting().until(ExpectedConditions.elementToBeClickable(By.cssSelector(".catalog tr.pick[data-name='public.totals']")));
        totals.click();
        WebElement details = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".details .definition")));
        assertThat(details.getText()).contains("SELECT").contains("sum(").contains("GROUP BY");
        assertThat(rowsOf(".details table.columns", 2)).containsExactly(List.of("region", "text", "yes"), List.of("total", "bigint", "yes"));
        assertThat(rowsOf(".details table.sizes", 1)).allSatisfy(row -> assertThat(Long.parseLong(row.get(row.size() - 1))).isPositive());
        assertThat(browser.findElement(By.cssSelector(".details .frontiers")).getText()).contains("upper").contains("lag");

        waiting().until(d -> d.findElements(By.cssSelector("svg.dataflow g.op")).size() >= 3);
        assertThat(browser.findElements(By.cssSelector("svg.dataflow g.op.arranged"))).isNotEmpty();
        assertThat(browser.findElements(By.cssSelector("svg.dataflow line"))).isNotEmpty();
        assertThat(browser.findElement(By.cssSelector("svg.dataflow")).getText()).contains("reduce");
    }

    @Test
    void theServersMetricsArePlotted() {
        served.db().execute("CREATE TABLE t (a int)");
        open();
        for (int i = 0; i < 3; i++) served.db().execute("INSERT INTO t VALUES (" + i + ")");
        // a rate needs two samples: the page takes one at once and another a few seconds later
        for (String plot : List.of("rates", "latency", "memory")) {
            waiting().until(d -> d.findElements(By.cssSelector("svg.plot[data-plot='" + plot + "'] polyline")).size() >= 2);
        }
        assertThat(browser.findElement(By.cssSelector(".metrics")).getText()).contains("commits/s").contains("p99").contains("heap");
    }

    @Test
    void aRoleWithAPasswordLogsInWithScramAndItsPrivilegesHold() throws Exception {
        served.db().execute("CREATE TABLE secrets (s text)");
        served.db().execute("CREATE TABLE notes (n text)");
        served.db().execute("INSERT INTO notes VALUES ('hello')");
        served.db().execute("CREATE ROLE alice LOGIN PASSWORD 'wonder land'");
        served.db().execute("GRANT SELECT ON notes TO alice");
        open();
        WebElement user = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("login-user")));
        user.sendKeys("alice");
        browser.findElement(By.id("login-password")).sendKeys("not it");
        browser.findElement(By.id("login-submit")).click();
        WebElement refused = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".login .error")));
        assertThat(refused.getText()).contains("password authentication failed for user \"alice\"");

        browser.findElement(By.id("login-password")).clear();
        browser.findElement(By.id("login-password")).sendKeys("wonder land");
        browser.findElement(By.id("login-submit")).click();
        waiting().until(ExpectedConditions.textToBe(By.cssSelector(".whoami"), "alice"));
        run("SELECT current_user, n FROM notes");
        assertThat(rowsOf(".results table", 1)).containsExactly(List.of("alice", "hello"));
        run("SELECT * FROM secrets");
        WebElement denied = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".results .error")));
        assertThat(denied.getAttribute("data-sqlstate")).isEqualTo("42501");
        assertThat(denied.getText()).contains("permission denied for table secrets");
        // the cookie is the browser's, out of the page's script's reach
        assertThat(browser.manage().getCookieNamed("tributary_console").isHttpOnly()).isTrue();
        assertThat((String) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript("return document.cookie")).doesNotContain("tributary_console");

        screenshot("aRoleWithAPasswordLogsInWithScramAndItsPrivilegesHold-loggedIn");
        browser.findElement(By.id("logout")).click();
        waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("login-user")));

        // the page prepares a password as the server does (SASLprep): a no-break space is a space, and NFKC applies
        served.db().execute("ALTER ROLE alice PASSWORD 'Wönder land'");
        browser.findElement(By.id("login-user")).clear();
        browser.findElement(By.id("login-user")).sendKeys("alice");
        browser.findElement(By.id("login-password")).clear();
        browser.findElement(By.id("login-password")).sendKeys("Wo\u0308nder\u00A0land");
        browser.findElement(By.id("login-submit")).click();
        waiting().until(ExpectedConditions.textToBe(By.cssSelector(".whoami"), "alice"));
    }
}
