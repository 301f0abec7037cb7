using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace Polly.Retry;

/// <summary>
/// Options for the retry strategy.
/// </summary>
[Serializable]
public class RetryStrategyOptions<TResult> : ResilienceStrategyOptions
{
    internal const int DefaultRetryCount = 3;

    private static readonly Dictionary<string, int> Defaults = new()
    {
        ["attempts"] = DefaultRetryCount,
    };

    public int MaxRetryAttempts { get; set; } = DefaultRetryCount;

    public TimeSpan Delay
    {
        get => _delay;
        set
        {
            Guard.NotNegative(value);
            _delay = value;
        }
    }

    public bool IsInfinite => MaxRetryAttempts == int.MaxValue;

    public string Name { get { return _name ?? string.Empty; } set { _name = value; } }

    public RetryStrategyOptions() : base("Retry") { }

    public RetryStrategyOptions(int attempts)
        : this()
    {
        MaxRetryAttempts = attempts;
    }

    [Obsolete("Use ShouldHandle instead.")]
    public Func<Outcome<TResult>, ValueTask<bool>> ShouldRetry(
        Outcome<TResult> outcome,
        int attempt)
    {
        return _ => new ValueTask<bool>(attempt < MaxRetryAttempts);
    }

    public override string ToString() => $"Retry({MaxRetryAttempts})";

    public IDictionary<string, object> Describe() { return new Dictionary<string, object> {
        ["attempts"] = MaxRetryAttempts,
    }; }

    protected virtual async Task<TResult> ExecuteCoreAsync<TState>(
        Func<TState, Task<TResult>> callback,
        TState state)
        where TState : class
    {
        return await callback(state).ConfigureAwait(false);
    }

    private TimeSpan _delay;
    private string? _name;
}

public interface IRetryListener
{
    void OnRetry(int attempt);

    ValueTask OnRetryAsync(int attempt) => default;
}

public enum BackoffType
{
    Constant,
    Linear,
    Exponential,
}

public record struct RetryAttempt(int Number, TimeSpan Delay);

public delegate ValueTask<bool> ShouldHandle<TResult>(Outcome<TResult> outcome);
