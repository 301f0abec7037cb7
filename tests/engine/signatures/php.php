<?php

declare(strict_types=1);

namespace Slim\Routing;

use Psr\Http\Message\ResponseInterface;

const DEFAULT_METHOD = 'GET';

/**
 * Collects routes and dispatches them.
 */
#[\AllowDynamicProperties]
final class RouteCollector implements RouteCollectorInterface
{
    public const NAME_PREFIX = 'route';

    private const DEFAULTS = [
        'cacheFile' => null,
    ];

    protected array $routes = [];

    public function __construct(
        protected ResponseFactoryInterface $responseFactory,
        ?string $basePath = null,
    ) {
        $this->basePath = $basePath ?? '';
    }

    public function getRoutes(): array { return $this->routes; }

    public function getDefaults(): array { return [
        'basePath' => $this->basePath,
    ]; }

    /**
     * Add a route.
     */
    #[Pure]
    public function map(array $methods, string $pattern, callable|string $handler): RouteInterface
    {
        $route = $this->createRoute($methods, $pattern, $handler);
        $this->routes[$route->getIdentifier()] = $route;
        return $route;
    }

    abstract protected function createRoute(array $methods, string $pattern, $callable): RouteInterface;

    public static function fromArray(array $config): static { if (isset($config['routes'])) {
            return new static($config['factory']);
        }
        throw new \InvalidArgumentException('routes missing');
    }
}

interface RouteCollectorInterface
{
    public function getRoutes(): array;
}

trait MiddlewareAwareTrait
{
    public function add($middleware): self
    {
        $this->middleware[] = $middleware;
        return $this;
    }
}

enum Status: int
{
    case Active = 1;

    public function label(): string
    {
        return match ($this) {
            Status::Active => 'active',
        };
    }
}

function route_name(string $pattern): string
{
    return strtolower(trim($pattern, '/'));
}
